import { expect, test, type Page } from '@playwright/test'
import { chatChunks, startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../fixtures/fake-openai'
import { startFakeHttpServer, type FakeServer } from '../fixtures/fake-anthropic/fake-http-server'
import { SSE_HEADERS, geminiEvent } from '../fixtures/fake-google/gemini-sse'
import { configureProvider, holdAnswers, openApp, pickModel, snap } from './helpers'

// Issue 15 in the real app (browser mode) against fake providers: web search with citations,
// thinking on/off reaching the request body, a conversation compressed instead of refused,
// a translation, generated agent meta, and the title task cancelled by Esc.
const KEY = 'sk-e2e-controls-0123456789'
let openai: FakeOpenAI
let gemini: FakeServer
let titleDelayMs = 0 // set per test; long enough to see the title task run on a loaded machine

test.describe.configure({ mode: 'serial' })

type Body = { messages: { role: string; content: string }[] }

// The scenes' system prompts (src/core/chat/scenes.ts), recognised by their openings:
// the e2e project does not compile the app's sources.
const scenePrompts = {
  title: 'You write a title',
  history: 'You summarise the earlier part',
  detect: 'Which language',
  agentTitle: 'From the system prompt below, write a short name',
  agentDescription: 'From the system prompt below, write a one-sentence description',
  agentTags: 'From the system prompt below, write 3 to 5 short tags'
}
const is = (system: string, prompt: string) => system.startsWith(prompt)
const first = (req: RecordedRequest) => String((req.body as Body).messages[0]?.content ?? '')

test.beforeAll(async () => {
  openai = await startFakeOpenAI()
  openai.setDefault('/chat/completions', (req: RecordedRequest) => {
    const system = first(req)
    if (is(system, scenePrompts.title)) return { kind: 'sse', chunks: chatChunks(['Controls ', 'chat']), delayMs: titleDelayMs }
    if (is(system, scenePrompts.history)) return { kind: 'sse', chunks: chatChunks(['The user pasted three long word lists.']) }
    if (is(system, scenePrompts.detect)) return { kind: 'sse', chunks: chatChunks(['en']) }
    if (system.startsWith('You are a translator')) return { kind: 'sse', chunks: chatChunks(['Bonjour le monde']) }
    if (is(system, scenePrompts.agentTitle)) return { kind: 'sse', chunks: chatChunks(['Recipe Helper']) }
    if (is(system, scenePrompts.agentDescription)) return { kind: 'sse', chunks: chatChunks(['Suggests recipes from your fridge.']) }
    if (is(system, scenePrompts.agentTags)) return { kind: 'sse', chunks: chatChunks(['cooking, recipes']) }
    if (String((req.body as Body).messages.at(-1)?.content).includes('weather tool')) {
      const base = { id: 'chatcmpl-tool', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'gpt-4o-mini' }
      return {
        kind: 'sse',
        chunks: [
          { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] }, finish_reason: null }] },
          { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":"Paris","unit":"C"}' } }] }, finish_reason: null }] },
          { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }
        ]
      }
    }
    return { kind: 'sse', chunks: chatChunks(['Hello world']) }
  })
  gemini = await startFakeHttpServer()
  gemini.handle(() => ({
    headers: SSE_HEADERS,
    chunks: [
      geminiEvent({
        candidates: [
          {
            content: { role: 'model', parts: [{ text: 'Paris is sunny today [1].' }] },
            finishReason: 'STOP',
            index: 0,
            groundingMetadata: { groundingChunks: [{ web: { uri: 'https://example.com/weather', title: 'Paris weather' } }], webSearchQueries: ['paris weather'] }
          }
        ],
        usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 6, totalTokenCount: 11 }
      })
    ]
  }))
})

test.afterAll(async () => {
  await openai.close()
  await gemini.close()
})

async function newChat(page: Page) {
  await openApp(page, '#/chat')
  await page.getByTestId('new-chat').click()
}

async function send(page: Page, text: string) {
  await page.getByTestId('composer-input').fill(text)
  await page.getByTestId('composer-input').press('Enter')
}

// The conversation's own requests (its model also writes the title afterwards).
const geminiBody = () => gemini.requests.filter((r) => !r.body.includes('You write a title')).at(-1)!.json as { tools?: unknown[]; generationConfig?: { thinkingConfig?: { thinkingBudget?: number } } }

test('web search: the toggle reaches the request, the reply lists its sources and the marker links to them', async ({ page }) => {
  await configureProvider(page, 'google', gemini.url, 'AIza-e2e-controls-0123456789')
  await newChat(page)
  await pickModel(page, 'google', 'gemini-2.5-flash')
  const search = page.getByTestId('control-search')
  await expect(search).toHaveAttribute('aria-pressed', 'false')
  await search.click()
  await expect(search).toHaveAttribute('aria-pressed', 'true')
  await send(page, 'Weather in Paris?')
  const reply = page.getByTestId('message-assistant').last()
  await expect(reply).toContainText('Paris is sunny today')
  expect(geminiBody().tools).toEqual([{ googleSearch: {} }])
  const citation = reply.getByTestId('citation')
  await expect(citation).toHaveCount(1)
  await expect(citation.getByRole('link', { name: 'Paris weather' })).toHaveAttribute('href', 'https://example.com/weather')
  await expect(reply.getByRole('link', { name: '[1]' })).toHaveAttribute('href', 'https://example.com/weather')
  await expect(reply.getByTestId('message-options')).toContainText('web search')
  await snap(page, 'chat-search-citations')
})

test('thinking off and on (with a budget) reach the request body and show on the message', async ({ page }) => {
  await newChat(page)
  await pickModel(page, 'google', 'gemini-2.5-flash')
  const thinking = page.getByTestId('control-thinking')
  await expect(thinking).toHaveAttribute('aria-pressed', 'true')
  await thinking.click()
  await expect(thinking).toHaveAttribute('aria-pressed', 'false')
  await send(page, 'Quick answer please')
  await expect(page.getByTestId('message-assistant').last()).toContainText('Paris is sunny')
  expect(geminiBody().generationConfig?.thinkingConfig?.thinkingBudget).toBe(0)
  await expect(page.getByTestId('message-assistant').last().getByTestId('message-options')).toContainText('no thinking')

  await thinking.click()
  await page.getByTestId('control-budget').fill('4096')
  await expect(page.getByTestId('control-budget-value')).toContainText('4,096')
  await send(page, 'Think about it')
  await expect(page.getByTestId('message-assistant')).toHaveCount(2)
  await expect(page.getByTestId('message-assistant').last()).toContainText('Paris is sunny')
  expect(geminiBody().generationConfig?.thinkingConfig?.thinkingBudget).toBe(4096)
  await expect(page.getByTestId('message-assistant').last().getByTestId('message-options')).toContainText('budget 4,096')
  await snap(page, 'chat-thinking-controls')
})

test('a conversation too long for the model is compressed instead of refused', async ({ page }) => {
  await configureProvider(page, 'openai', openai.url, KEY)
  await newChat(page)
  await pickModel(page, 'openai', 'gpt-4')
  // gpt-4 reads 8,192 tokens; three messages of ~3,000 tokens each go over it.
  for (let i = 1; i <= 3; i++) {
    await send(page, `${'word '.repeat(12_000 / 5)}list ${i}`)
    if (i === 3) {
      // The composer's counter sees it first; sending anyway lets the core decide.
      await expect(page.getByTestId('context-warning')).toBeVisible()
      await page.getByTestId('composer-input').press('Enter')
    }
    await expect(page.getByTestId('message-assistant')).toHaveCount(i)
  }
  const refused = page.getByTestId('message-assistant').last()
  await expect(refused.getByTestId('error-card')).toHaveAttribute('data-error-type', 'ExceededContextWindow')
  await expect(refused.getByTestId('error-action-trim')).toBeVisible()
  const before = openai.requestsTo('/chat/completions').length
  await refused.getByTestId('error-action').click()
  await expect(page.getByTestId('summary-marker')).toBeVisible()
  await expect(page.getByTestId('message-assistant').last()).toContainText('Hello world')
  const bodies = openai.requestsTo('/chat/completions').slice(before).map((r) => r.body as Body)
  expect(bodies[0]!.messages[0]!.content).toMatch(/^You summarise the earlier part/)
  const sent = bodies.find((b) => !is(b.messages[0]!.content, scenePrompts.history) && !is(b.messages[0]!.content, scenePrompts.title))!
  expect(sent.messages.some((m) => m.content.includes('three long word lists'))).toBe(true)
  expect(sent.messages.some((m) => m.content.endsWith('list 1'))).toBe(false)
  await page.getByTestId('summary-marker').locator('summary').click()
  await expect(page.getByTestId('summary-text')).toContainText('three long word lists')
  await snap(page, 'chat-compressed')
})

test('a message is translated and the translation stays under it after a reload', async ({ page }) => {
  await newChat(page)
  await pickModel(page, 'openai', 'gpt-4o-mini')
  await send(page, 'Hello')
  const reply = page.getByTestId('message-assistant').last()
  await expect(reply).toContainText('Hello world')
  await reply.hover()
  await reply.getByTestId('op-translate').selectOption('fr')
  await expect(reply.getByTestId('translation')).toContainText('Bonjour le monde')
  await page.reload()
  await expect(page.getByTestId('message-assistant').last().getByTestId('translation')).toContainText('Bonjour le monde')
  await snap(page, 'chat-translation')
})

test('agent settings generate a name, description and tags from the system prompt', async ({ page }) => {
  await openApp(page, '#/chat')
  await pickModel(page, 'openai', 'gpt-4o-mini')
  await page.getByTestId('open-agent-settings').click()
  const dialog = page.getByTestId('agent-settings')
  await dialog.getByTestId('agent-system-prompt').fill('You suggest recipes from what is in the fridge.')
  await dialog.getByTestId('agent-generate-meta').click()
  await expect(dialog.getByTestId('agent-name')).toHaveValue('Recipe Helper')
  await expect(dialog.getByTestId('agent-description')).toHaveValue('Suggests recipes from your fridge.')
  await expect(dialog.getByTestId('agent-tags')).toHaveValue('cooking, recipes')
  await snap(page, 'agent-generated-meta')
  await dialog.getByTestId('agent-save').click()
  await expect(page.getByTestId('open-agent-settings')).toHaveText('Recipe Helper')
})

test('agent settings: Save says it is saving and is not sent twice while the answer is on its way', async ({ page }) => {
  const updates = await holdAnswers(page, (call) => call.proc === 'data.agents.update', 1_500)
  await openApp(page, '#/chat')
  await page.getByTestId('open-agent-settings').click()
  const dialog = page.getByTestId('agent-settings')
  await dialog.getByTestId('agent-description').fill('Saved once')
  const save = dialog.getByTestId('agent-save')
  await save.click()
  await expect(save).toHaveText('Saving…')
  await expect(save).toBeDisabled()
  await expect(save).toHaveAttribute('aria-busy', 'true')
  await save.click({ force: true })
  await expect(dialog).toHaveCount(0)
  expect(updates.size).toBe(1)
})

test('the title task runs after the reply and Esc cancels it', async ({ page }) => {
  titleDelayMs = 1500
  await newChat(page)
  await pickModel(page, 'openai', 'gpt-4o-mini')
  await send(page, 'Name this later')
  await expect(page.getByTestId('message-assistant').last()).toContainText('Hello world')
  const title = page.getByTestId('conversation-title')
  await expect(title).toHaveAttribute('data-titling', 'true')
  // The reply itself is finished: its stream did not wait for the title.
  await expect(page.getByTestId('message-assistant').last()).toHaveAttribute('data-status', 'complete')
  await page.keyboard.press('Escape')
  await expect(title).not.toHaveAttribute('data-titling', 'true')
  await expect(title).toHaveText('New chat')
  expect(openai.requestsTo('/chat/completions').some((r) => is(first(r), scenePrompts.title))).toBe(true)
  titleDelayMs = 0
})

test('a tool call is shown as a formatted call marked not run, never as a reply that silently ends', async ({ page }) => {
  await newChat(page)
  await pickModel(page, 'openai', 'gpt-4o-mini')
  await send(page, 'Use the weather tool for Paris')
  const call = page.getByTestId('message-assistant').last().getByTestId('tool-call')
  await expect(call).toContainText('get_weather()')
  await expect(call.getByTestId('tool-not-run')).toHaveText('not run')
  // Arguments pretty-printed, one key a line.
  await expect(call.locator('pre')).toHaveText('{\n  "city": "Paris",\n  "unit": "C"\n}')
  await snap(page, 'chat-tool-call-not-run')
})
