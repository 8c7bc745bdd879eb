import { expect, test, type Page } from '@playwright/test'
import { chatChunks, errorBody, startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../fixtures/fake-openai'
import { configureProvider, pickModel, snap } from './helpers'

// Issue 7's flow against the real app in browser mode and a fake OpenAI-compatible server:
// add a key, pick a model, stream, stop, regenerate, edit, delete, switch and reload mid-stream,
// and a wrong key → error card → key dialog → retry.
const GOOD_KEY = 'sk-e2e-good-key-0123456789'
const BAD_KEY = 'sk-e2e-wrong-key-0123456789'
let fake: FakeOpenAI
let slowWords = 0

test.describe.configure({ mode: 'serial' })

test.beforeAll(async () => {
  fake = await startFakeOpenAI()
  fake.setDefault('/chat/completions', (req: RecordedRequest) => {
    if (req.headers.authorization !== `Bearer ${GOOD_KEY}`) return { kind: 'json', status: 401, body: errorBody('Incorrect API key provided', 'invalid_api_key') }
    const body = req.body as { messages: { role: string; content: string }[]; max_tokens?: number }
    const last = String(body.messages.at(-1)?.content ?? '')
    if (body.messages[0]?.content.startsWith('You write a title')) return { kind: 'sse', chunks: chatChunks(['E2E ', 'conversation']) }
    if (last.includes('slow')) {
      slowWords = 120
      return { kind: 'sse', chunks: chatChunks(Array.from({ length: slowWords }, (_, i) => `word${i} `)), delayMs: 60 }
    }
    return {
      kind: 'sse',
      chunks: chatChunks([`You said: ${last}. `, 'Here is ', '**bold**', ' and `code`.\n\n', '```ts\n', 'const x = 1\n', '```\n'], {
        usage: { prompt_tokens: 12, completion_tokens: 30, total_tokens: 42 }
      }),
      // Paced like a real model: a burst under 100 ms shows no tok/s (it would be a meaningless figure).
      // Seven pieces 60 ms apart span 360 ms: a loaded CI machine once stalled the app ~200 ms at the
      // start, the three pieces this reply had then arrived in one read, and the reply showed no tok/s.
      delayMs: 60
    }
  })
})

test.afterAll(async () => fake.close())

const addOpenAIKey = (page: Page, key: string) => configureProvider(page, 'openai', fake.url, key)

async function pickMini(page: Page) {
  await pickModel(page, 'openai', 'gpt-4o-mini')
  await expect(page.getByTestId('model-picker')).toContainText('mini')
}

async function sendMessage(page: Page, text: string) {
  await page.getByTestId('composer-input').fill(text)
  await page.getByTestId('composer-input').press('Enter')
}

/**
 * A conversation of this test's own, with one finished turn: no test depends on another
 * test's (or another spec's) conversations, their order or which one is listed first.
 */
async function ownConversation(page: Page) {
  await addOpenAIKey(page, GOOD_KEY)
  await page.getByTestId('nav-chat').click()
  await page.getByTestId('new-chat').click()
  await pickMini(page)
  await sendMessage(page, 'hello there')
  await expect(page.getByTestId('message-assistant').last()).toHaveAttribute('data-status', 'complete')
}

test('add a key, pick a model, send and see the reply stream in', async ({ page }) => {
  await addOpenAIKey(page, GOOD_KEY)
  await page.getByTestId('nav-chat').click()
  await pickMini(page)
  await sendMessage(page, 'hello there')
  const reply = page.getByTestId('message-assistant').last()
  await expect(reply).toContainText('You said: hello there.')
  await expect(reply.locator('strong')).toHaveText('bold')
  await expect(reply.locator('pre code')).toContainText('const x = 1')
  await expect(reply.getByTestId('message-stats').getByTitle('Input tokens')).toHaveText('12')
  await expect(reply.getByTestId('message-stats').getByTitle('Output tokens')).toHaveText('30')
  await expect(reply.getByTestId('message-stats')).toContainText('tok/s')
  await expect(reply.getByTestId('message-cost')).toContainText('$')
  await expect(page.getByTestId('conversation-title')).toHaveText('E2E conversation')
  await snap(page, 'chat-reply')
})

test('stop a reply mid-stream keeps its partial text; regenerate, edit and delete', async ({ page }) => {
  await ownConversation(page)
  await sendMessage(page, 'please be slow')
  const reply = page.getByTestId('message-assistant').last()
  await expect(reply).toContainText('word3')
  await snap(page, 'chat-mid-stream')
  await page.keyboard.press('Escape')
  await expect(reply).toHaveAttribute('data-status', 'interrupted')
  await expect(reply.getByTestId('interrupted')).toBeVisible()
  const partial = await reply.innerText()
  expect(partial).not.toContain(`word${slowWords - 1}`)

  // Regenerate the first reply: a second version appears, the first stays reachable.
  const first = page.getByTestId('message-assistant').first()
  await first.hover()
  await first.getByTestId('op-regenerate').click()
  await expect(page.getByTestId('message-assistant').first().getByTestId('branch-switch')).toContainText('2/2')
  await page.getByTestId('message-assistant').first().hover()
  await page.getByTestId('message-assistant').first().getByRole('button', { name: 'Previous version' }).click()
  await expect(page.getByTestId('message-assistant').first().getByTestId('branch-switch')).toContainText('1/2')

  // Edit the first user message: a new branch with a new reply.
  const user = page.getByTestId('message-user').first()
  await user.hover()
  await user.getByTestId('op-edit').click()
  await page.getByTestId('edit-input').fill('edited question')
  await page.getByTestId('edit-save').click()
  await expect(page.getByTestId('message-assistant').first()).toContainText('You said: edited question.')

  // Delete the last reply.
  const count = await page.getByTestId('message-assistant').count()
  const last = page.getByTestId('message-assistant').last()
  await last.hover()
  await last.getByTestId('op-delete').click()
  await expect(page.getByTestId('message-assistant')).toHaveCount(count - 1)
})

test('switching conversation mid-stream and coming back shows the finished reply', async ({ page }) => {
  await ownConversation(page)
  await expect(page).toHaveURL(/\/chat\/./)
  const conversationUrl = page.url()
  await sendMessage(page, 'slow again please')
  await expect(page.getByTestId('message-assistant').last()).toContainText('word2')
  await page.getByTestId('new-chat').click()
  await expect(page.getByTestId('message-list')).toHaveCount(0)
  await page.goto(conversationUrl)
  const reply = page.getByTestId('message-assistant').last()
  await expect(reply).toContainText(`word${slowWords - 1}`, { timeout: 20_000 })
  await expect(reply).toHaveAttribute('data-status', 'complete')
})

test('reloading mid-stream re-attaches and the reply continues', async ({ page }) => {
  await ownConversation(page)
  await sendMessage(page, 'slow once more')
  await expect(page.getByTestId('message-assistant').last()).toContainText('word2')
  await page.reload()
  const reply = page.getByTestId('message-assistant').last()
  await expect(reply).toHaveAttribute('aria-busy', 'true', { timeout: 10_000 })
  await expect(reply).toContainText(`word${slowWords - 1}`, { timeout: 20_000 })
  await expect(reply).toHaveAttribute('data-status', 'complete')
})

test('a wrong key shows an error card; entering the right key in the dialog and retrying succeeds', async ({ page }) => {
  await addOpenAIKey(page, BAD_KEY)
  await page.getByTestId('nav-chat').click()
  await page.getByTestId('new-chat').click()
  await sendMessage(page, 'does this work')
  const card = page.getByTestId('error-card')
  await expect(card).toHaveAttribute('data-error-type', 'InvalidProviderAPIKey')
  await expect(card).toContainText('API key')
  await snap(page, 'chat-error-card')
  await card.getByTestId('error-action').click()
  await expect(page.getByTestId('api-key-dialog')).toBeVisible()
  await page.getByTestId('api-key-input').fill(GOOD_KEY)
  await page.getByTestId('api-key-confirm').click()
  await expect(page.getByTestId('message-assistant').last()).toContainText('You said: does this work.')
  await expect(page.getByTestId('error-card')).toHaveCount(0)
})
