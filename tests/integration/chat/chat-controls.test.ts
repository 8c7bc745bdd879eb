/* eslint-disable @typescript-eslint/no-explicit-any -- wire bodies are inspected loosely */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { ChatStreamEvent } from '../../../src/shared/bridge/procedures/chat'
import type { ModelParameters } from '../../../src/shared/data/agent'
import { messageText, type Message } from '../../../src/shared/data/message'
import type { Result } from '../../../src/shared/errors/app-error'
import { scenePrompts } from '../../../src/core/chat/scenes'
import { summaryPreamble } from '../../../src/core/chat/to-chat-messages'
import { chatChunks, startFakeOpenAI, type FakeOpenAI, type RecordedRequest as OpenAIRequest } from '../../fixtures/fake-openai'
import { startFakeHttpServer, type FakeServer } from '../../fixtures/fake-anthropic/fake-http-server'
import { SSE_HEADERS as ANTHROPIC_SSE, anthropicTextReply } from '../../fixtures/fake-anthropic/anthropic-sse'
import { SSE_HEADERS as GEMINI_SSE, geminiEvent, geminiTextReply } from '../../fixtures/fake-google/gemini-sse'
import { readyTestCore } from '../test-core'

// Issue 15: what the chat asks for reaches the provider. The real core (SQLite in a temporary
// folder, the bridge in-process) and the real SDKs against fake servers speaking each wire format:
// Anthropic Messages, Gemini streamGenerateContent, OpenAI-compatible chat completions.
let openai: FakeOpenAI
let anthropic: FakeServer
let google: FakeServer
let core: Core
let client: BridgeClient<Contract>
let agentId: string

const ok = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}

beforeAll(async () => {
  openai = await startFakeOpenAI()
  anthropic = await startFakeHttpServer()
  google = await startFakeHttpServer()
  const app = await readyTestCore('sb-controls-', { secrets: { backend: new MemoryBackend() } })
  core = app.core
  client = app.client
  for (const [providerId, url] of [
    ['openai', openai.url],
    ['qwen', openai.url],
    ['anthropic', anthropic.url],
    ['google', google.url]
  ] as const) {
    ok(await client.call('providers.update', { providerId, baseURL: url }))
    ok(await client.call('providers.setKey', { providerId, apiKey: `sk-test-${providerId}-0123456789` }))
  }
  agentId = ok(await client.call('chat.sidebar', {})).defaultAgentId
})

afterAll(async () => {
  await core.close()
  await openai.close()
  await anthropic.close()
  await google.close()
})

beforeEach(() => {
  openai.reset()
  anthropic.requests.length = 0
  google.requests.length = 0
  anthropic.handle(() => ({ headers: ANTHROPIC_SSE, chunks: anthropicTextReply(['Claude ', 'here']) }))
  google.handle(() => ({ headers: GEMINI_SSE, chunks: geminiTextReply(['Gemini ', 'here']) }))
})

type Run = { events: ChatStreamEvent[]; result: Result<Message> }
function send(input: Record<string, unknown>): Promise<Run> {
  return new Promise((resolve) => {
    const events: ChatStreamEvent[] = []
    client.stream('chat.send', input as never, { onEvent: (e) => events.push(e), onEnd: (result) => resolve({ events, result }) })
  })
}

/** A fresh conversation with `model` and `parameters`, and one message sent in it. */
async function chatWith(providerId: string, modelId: string, parameters: ModelParameters, text = 'hello') {
  const conversation = ok(await client.call('data.conversations.create', { agentId, providerId, modelId, parameters }))
  const run = await send({ conversationId: conversation.id, text })
  return { conversation, run, message: ok(run.result) }
}

const lastBody = (server: FakeServer) => server.requests.at(-1)!.json as Record<string, any>
const usageScenes = () => core.services().store.usage.list({}).map((u) => u.scene)

describe('thinking and caching reach the wire', () => {
  it('Anthropic: default sends no thinking and caches the prompt; the message shows the choice', async () => {
    const { message, run } = await chatWith('anthropic', 'claude-sonnet-4-5-20250929', {})
    expect(messageText(message.content)).toBe('Claude here')
    const body = lastBody(anthropic)
    expect(body.thinking).toBeUndefined()
    expect(JSON.stringify(body)).toContain('"cache_control":{"type":"ephemeral"}')
    expect(message.meta?.options).toEqual({ thinking: false, caching: true })
    expect(run.events.find((e) => e.type === 'options')).toEqual({ type: 'options', data: { thinking: false, caching: true } })
    // Kept with the message, not only announced in the stream.
    const stored = core.services().store.messages.require(message.id)
    expect(stored.meta?.options).toEqual({ thinking: false, caching: true })
  })

  it('Anthropic: thinking on with a budget beyond the model is clamped to max output − 1; caching off sends no cache_control', async () => {
    const { message } = await chatWith('anthropic', 'claude-sonnet-4-5-20250929', { thinking: true, thinkingBudget: 1_000_000, contextCaching: false, maxOutputTokens: 64000 })
    const body = lastBody(anthropic)
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 63999 })
    expect(JSON.stringify(body)).not.toContain('cache_control')
    expect(message.meta?.options).toEqual({ thinking: true, budget: 63999, caching: false })
  })

  it('Gemini: thinking off sends budget 0; a budget inside the bounds is sent as is', async () => {
    await chatWith('google', 'gemini-2.5-flash', { thinking: false })
    expect(lastBody(google).generationConfig?.thinkingConfig ?? lastBody(google).config?.thinkingConfig).toMatchObject({ thinkingBudget: 0 })
    await chatWith('google', 'gemini-2.5-flash', { thinking: true, thinkingBudget: 2048 })
    expect(lastBody(google).generationConfig?.thinkingConfig).toMatchObject({ thinkingBudget: 2048, includeThoughts: true })
  })

  it('Qwen (OpenAI-compatible): enable_thinking and thinking_budget follow the switch', async () => {
    await chatWith('qwen', 'qwen-plus', { thinking: true, thinkingBudget: 4096 })
    let body = openai.requestsTo('/chat/completions').at(-1)!.body as Record<string, any>
    expect(body.enable_thinking).toBe(true)
    expect(body.thinking_budget).toBe(4096)
    await chatWith('qwen', 'qwen-plus', { thinking: false })
    body = openai.requestsTo('/chat/completions').at(-1)!.body as Record<string, any>
    expect(body.enable_thinking).toBe(false)
    expect(body.thinking_budget).toBeUndefined()
  })

  it('SiliconCloud and OpenRouter: the budget is held to their bounds on the wire', async () => {
    for (const providerId of ['siliconcloud', 'openrouter']) {
      ok(await client.call('providers.update', { providerId, baseURL: openai.url }))
      ok(await client.call('providers.setKey', { providerId, apiKey: `sk-test-${providerId}-0123456789` }))
    }
    await chatWith('siliconcloud', 'moonshotai/Kimi-K2.7-Code', { thinking: true, thinkingBudget: 100_000 })
    let body = openai.requestsTo('/chat/completions').at(-1)!.body as Record<string, any>
    expect(body.enable_thinking).toBe(true)
    expect(body.thinking_budget).toBe(32768)
    await chatWith('siliconcloud', 'moonshotai/Kimi-K2.7-Code', { thinking: false })
    body = openai.requestsTo('/chat/completions').at(-1)!.body as Record<string, any>
    expect(body.enable_thinking).toBe(false)
    await chatWith('openrouter', 'anthropic/claude-sonnet-4', { thinking: true, thinkingBudget: 2048 })
    body = openai.requestsTo('/chat/completions').at(-1)!.body as Record<string, any>
    expect(body.reasoning).toEqual({ max_tokens: 2048 })
  })

  it('reasoning effort is sent only as a value the model takes', async () => {
    await chatWith('openai', 'o3-mini', { reasoningEffort: 'high' })
    expect((openai.requestsTo('/chat/completions').at(-1)!.body as any).reasoning_effort).toBe('high')
  })
})

describe('web search', () => {
  it('Anthropic: search on adds the web-search tool and the message says it searched with the provider', async () => {
    anthropic.handle(() => ({ headers: ANTHROPIC_SSE, chunks: anthropicTextReply(['Found it [1]']) }))
    const { message } = await chatWith('anthropic', 'claude-sonnet-4-5-20250929', { search: 'on' })
    const tools = (lastBody(anthropic).tools ?? []) as { type?: string; name?: string }[]
    expect(tools.some((t) => t.name === 'web_search')).toBe(true)
    expect(message.meta?.options).toMatchObject({ search: true, searchRoute: 'provider' })
  })

  it('Gemini: search on asks for grounding; the grounding chunks become the message citations', async () => {
    google.handle(() => ({
      headers: GEMINI_SSE,
      chunks: [
        geminiEvent({
          candidates: [
            {
              content: { role: 'model', parts: [{ text: 'Paris is sunny [1].' }] },
              finishReason: 'STOP',
              index: 0,
              groundingMetadata: { groundingChunks: [{ web: { uri: 'https://example.com/weather', title: 'Weather' } }], webSearchQueries: ['weather paris'] }
            }
          ],
          usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 5, totalTokenCount: 8 }
        })
      ]
    }))
    const { message } = await chatWith('google', 'gemini-2.5-flash', { search: 'on' })
    expect(lastBody(google).tools).toEqual([{ googleSearch: {} }])
    expect(message.grounding?.citations).toEqual([expect.objectContaining({ url: 'https://example.com/weather', title: 'Weather' })])
  })

  it('search limits from Settings: Anthropic max_uses, xAI max_search_results held to 1..30', async () => {
    ok(await client.call('providers.update', { providerId: 'xai', baseURL: openai.url }))
    ok(await client.call('providers.setKey', { providerId: 'xai', apiKey: 'xai-test-0123456789' }))
    ok(await client.call('data.settings.set', { patch: { searchMaxUses: 3, searchMaxResults: 50 } }))
    await chatWith('anthropic', 'claude-sonnet-4-5-20250929', { search: 'on' })
    expect((lastBody(anthropic).tools as { name?: string; max_uses?: number }[]).find((t) => t.name === 'web_search')?.max_uses).toBe(3)
    await chatWith('xai', 'grok-4.3', { search: 'on' })
    expect((openai.requestsTo('/chat/completions').at(-1)!.body as any).search_parameters).toMatchObject({ max_search_results: 30 })
    ok(await client.call('data.settings.set', { patch: { searchMaxUses: null, searchMaxResults: null } }))
    await chatWith('xai', 'grok-4.3', { search: 'on' })
    expect((openai.requestsTo('/chat/completions').at(-1)!.body as any).search_parameters).toMatchObject({ max_search_results: 15 })
  })

  it('Qwen: search off sends nothing; on sends enable_search', async () => {
    await chatWith('qwen', 'qwen-plus', {})
    expect((openai.requestsTo('/chat/completions').at(-1)!.body as any).enable_search).toBeUndefined()
    await chatWith('qwen', 'qwen-plus', { search: 'on' })
    expect((openai.requestsTo('/chat/completions').at(-1)!.body as any).enable_search).toBe(true)
  })

  it('automatic search asks Search Intent Recognition first, and searches only when it says yes', async () => {
    openai.setDefault('/chat/completions', (req: OpenAIRequest) => {
      const body = req.body as { messages: { content: string }[] }
      if (body.messages[0]?.content === scenePrompts.searchIntent) return { kind: 'sse', chunks: chatChunks([String(body.messages[1]?.content).includes('news') ? 'yes' : 'no']) }
      return { kind: 'sse', chunks: chatChunks(['ok']) }
    })
    await chatWith('qwen', 'qwen-plus', { search: 'auto' }, 'today’s news please')
    const bodies = openai.requestsTo('/chat/completions').map((r) => r.body as any)
    expect(bodies[0].messages[0].content).toBe(scenePrompts.searchIntent)
    expect(bodies[1].enable_search).toBe(true)
    openai.reset()
    openai.setDefault('/chat/completions', (req: OpenAIRequest) => {
      const body = req.body as { messages: { content: string }[] }
      return { kind: 'sse', chunks: chatChunks([body.messages[0]?.content === scenePrompts.searchIntent ? 'no' : 'ok']) }
    })
    await chatWith('qwen', 'qwen-plus', { search: 'auto' }, 'write a haiku')
    expect((openai.requestsTo('/chat/completions').at(-1)!.body as any).enable_search).toBeUndefined()
    expect(usageScenes()).toContain('Search Intent Recognition')
  })
})

describe('long conversations', () => {
  // gpt-4 reads 8,192 tokens in the catalogue: ~2,500 tokens per message fills it in four turns.
  const long = (n: number) => `${'word '.repeat(2500)}#${n}`

  async function seed(parameters: ModelParameters, turns: number) {
    const conversation = ok(await client.call('data.conversations.create', { agentId, providerId: 'openai', modelId: 'gpt-4', parameters: { historyCount: 0, ...parameters } }))
    openai.reset()
    openai.setDefault('/chat/completions', (req: OpenAIRequest) => {
      const body = req.body as { messages: { content: string }[] }
      if (body.messages[0]?.content === scenePrompts.history) return { kind: 'sse', chunks: chatChunks(['The user sent long word lists numbered 0 and onwards.']) }
      return { kind: 'sse', chunks: chatChunks(['short reply']) }
    })
    // Store the earlier turns directly (cheaper than sending them while the window allows).
    let parentId: string | undefined
    for (let i = 0; i < turns; i++) {
      const user: Message = core.services().store.messages.create({ conversationId: conversation.id, role: 'user', content: [{ type: 'text', text: long(i) }], ...(parentId ? { parentId } : {}) })
      const reply: Message = core.services().store.messages.create({ conversationId: conversation.id, role: 'assistant', content: [{ type: 'text', text: 'short reply' }], parentId: user.id })
      parentId = reply.id
    }
    return conversation
  }

  it('sends only the last N earlier messages when the agent says so', async () => {
    const conversation = await seed({ historyCount: 2 }, 1)
    openai.reset()
    await send({ conversationId: conversation.id, text: 'third' })
    const body = openai.requestsTo('/chat/completions').at(-1)!.body as { messages: { role: string; content: string }[] }
    expect(body.messages.filter((m) => m.role !== 'system').map((m) => m.content.slice(-2))).toEqual(['#0', 'ly', 'rd'])
    const conversation2 = await seed({ historyCount: 1 }, 2)
    openai.reset()
    await send({ conversationId: conversation2.id, text: 'next' })
    const body2 = openai.requestsTo('/chat/completions').at(-1)!.body as { messages: { role: string; content: string }[] }
    expect(body2.messages.filter((m) => m.role !== 'system').map((m) => m.content)).toEqual(['short reply', 'next'])
  })

  it('without compression a conversation over the window is refused with ExceededContextWindow', async () => {
    const conversation = await seed({}, 4)
    openai.reset()
    const run = await send({ conversationId: conversation.id, text: 'more' })
    const message = ok(run.result)
    expect(message.status).toBe('error')
    expect(message.error?.errorType).toBe('ExceededContextWindow')
    expect(openai.requestsTo('/chat/completions')).toHaveLength(0)
  })

  it('with compression the older messages are summarised and the summary is sent instead, marked and re-doable', async () => {
    const conversation = await seed({ autoCompress: true }, 4)
    const run = await send({ conversationId: conversation.id, text: 'more' })
    const message = ok(run.result)
    expect(message.status).toBe('complete')
    const [summaryRequest, replyRequest] = openai.requestsTo('/chat/completions').map((r) => r.body as { messages: { role: string; content: string }[] })
    expect(summaryRequest!.messages[0]!.content).toBe(scenePrompts.history)
    expect(summaryRequest!.messages[1]!.content).toContain('#0')
    const sent = replyRequest!.messages
    expect(sent.find((m) => m.role === 'system' && m.content.startsWith(summaryPreamble))?.content).toContain('long word lists')
    expect(sent.some((m) => m.content.endsWith('#0'))).toBe(false)
    expect(sent.at(-1)!.content).toBe('more')
    // The summary is kept on the last message it covers and announced in the stream.
    const summaryEvent = run.events.find((e) => e.type === 'summary')
    expect(summaryEvent?.type === 'summary' && summaryEvent.data.message.meta?.historySummary?.text).toContain('long word lists')
    const covered = summaryEvent?.type === 'summary' ? summaryEvent.data.message : undefined
    expect(usageScenes()).toContain('Summary History Messages')

    // The next turn reuses the summary without asking for a new one.
    openai.reset()
    ok((await send({ conversationId: conversation.id, text: 'again' })).result)
    expect(openai.requestsTo('/chat/completions')).toHaveLength(1)

    // Forgetting it makes the next reply summarise again.
    ok(await client.call('chat.forgetSummary', { messageId: covered!.id }))
    openai.reset()
    ok((await send({ conversationId: conversation.id, text: 'once more' })).result)
    expect((openai.requestsTo('/chat/completions')[0]!.body as any).messages[0].content).toBe(scenePrompts.history)
  })

  it('when even the summary cannot fit, ExceededContextWindow is raised', async () => {
    const conversation = await seed({ autoCompress: true }, 1)
    openai.reset()
    const run = await send({ conversationId: conversation.id, text: 'x '.repeat(40_000) })
    const message = ok(run.result)
    expect(message.error?.errorType).toBe('ExceededContextWindow')
  })
})

describe('scenes', () => {
  it('translates a message with Language Detect and Translator, keeps the result under it, logs both scenes', async () => {
    const { message } = await chatWith('openai', 'gpt-4o-mini', {})
    openai.setDefault('/chat/completions', (req: OpenAIRequest) => {
      const body = req.body as { messages: { content: string }[] }
      if (body.messages[0]?.content === scenePrompts.detect) return { kind: 'sse', chunks: chatChunks(['en']) }
      return { kind: 'sse', chunks: chatChunks(['你好，世界']) }
    })
    const translated = ok(await client.call('chat.translate', { messageId: message.id, language: 'zh-CN' }))
    expect(translated.meta?.translations).toEqual({ 'zh-CN': '你好，世界' })
    const translatorBody = openai.requestsTo('/chat/completions').at(-1)!.body as { messages: { content: string }[] }
    expect(translatorBody.messages[0]!.content).toBe(scenePrompts.translate('zh-CN', 'en'))
    expect(core.services().store.messages.require(message.id).meta?.translations?.['zh-CN']).toBe('你好，世界')
    expect(usageScenes()).toEqual(expect.arrayContaining(['Language Detect', 'Translator']))
  })

  it('a stopped reply is translated with its continuation, as one text, and the translation is kept on the reply', async () => {
    const { conversation, message: question } = await chatWith('openai', 'gpt-4o-mini', {})
    const { messages } = core.services().store
    const stopped = messages.create({ conversationId: conversation.id, role: 'assistant', parentId: question.id, content: [{ type: 'text', text: 'The partial resp' }], status: 'interrupted' })
    messages.create({ conversationId: conversation.id, role: 'assistant', parentId: stopped.id, content: [{ type: 'text', text: 'onse, now whole.' }], status: 'complete' })
    openai.setDefault('/chat/completions', (req: OpenAIRequest) => {
      const body = req.body as { messages: { content: string }[] }
      if (body.messages[0]?.content === scenePrompts.detect) return { kind: 'sse', chunks: chatChunks(['en']) }
      return { kind: 'sse', chunks: chatChunks(['部分回复，现在完整了。']) }
    })
    const translated = ok(await client.call('chat.translate', { messageId: stopped.id, language: 'zh-CN' }))
    const translatorBody = openai.requestsTo('/chat/completions').at(-1)!.body as { messages: { content: string }[] }
    expect(translatorBody.messages[1]!.content).toBe('The partial response, now whole.')
    expect(translated.id).toBe(stopped.id)
    expect(translated.meta?.translations).toEqual({ 'zh-CN': '部分回复，现在完整了。' })
  })

  it('generates an agent’s name, description and tags from its system prompt', async () => {
    openai.setDefault('/chat/completions', (req: OpenAIRequest) => {
      const first = (req.body as { messages: { content: string }[] }).messages[0]!.content
      const answer = first === scenePrompts.agentTitle ? 'Recipe Helper' : first === scenePrompts.agentDescription ? 'Suggests recipes from what you have.' : 'cooking, recipes, food'
      return { kind: 'sse', chunks: chatChunks([answer]) }
    })
    const meta = ok(await client.call('chat.agentMeta', { systemPrompt: 'You suggest recipes from the ingredients the user has.', providerId: 'openai', modelId: 'gpt-4o-mini' }))
    expect(meta).toEqual({ name: 'Recipe Helper', description: 'Suggests recipes from what you have.', tags: ['cooking', 'recipes', 'food'] })
    expect(usageScenes()).toEqual(expect.arrayContaining(['Summary Agent Title', 'Summary Agent Description', 'Summary Agent Tags']))
  })

  it('each scene uses the model chosen for it in Settings, else the conversation’s own model', async () => {
    ok(await client.call('data.settings.set', { patch: { sceneModels: { Translator: { providerId: 'openai', modelId: 'gpt-4o' } } } }))
    const { message } = await chatWith('openai', 'gpt-4o-mini', {})
    openai.reset()
    ok(await client.call('chat.translate', { messageId: message.id, language: 'fr' }))
    const models = openai.requestsTo('/chat/completions').map((r) => (r.body as { model: string }).model)
    // Language Detect has no choice: the conversation's own model, as Settings says.
    expect(models).toEqual(['gpt-4o-mini', 'gpt-4o'])
    ok(await client.call('data.settings.set', { patch: { sceneModels: null } }))
  })

  it('a failed first reply followed by a successful retry still gets a title', async () => {
    openai.enqueue('/chat/completions', { kind: 'json', status: 500, body: { error: { message: 'boom' } } }, { kind: 'json', status: 500, body: { error: { message: 'boom' } } }, { kind: 'json', status: 500, body: { error: { message: 'boom' } } })
    const failed = ok((await send({ agentId, providerId: 'openai', modelId: 'gpt-4o-mini', text: 'first try' })).result)
    expect(failed.status).toBe('error')
    const noTitle = await titleOf(failed.conversationId)
    expect(noTitle.result.ok).toBe(true)
    expect(noTitle.result.ok && noTitle.result.value).toBeFalsy()
    const retried = await new Promise<Run>((resolve) => {
      const events: ChatStreamEvent[] = []
      client.stream('chat.regenerate', { messageId: failed.id }, { onEvent: (e) => events.push(e), onEnd: (result) => resolve({ events, result }) })
    })
    expect(ok(retried.result).status).toBe('complete')
    openai.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['Retried title']) })
    const titled = await titleOf(failed.conversationId)
    expect(titled.result.ok && titled.result.value).toBe('Retried title')
    expect(ok(await client.call('data.conversations.get', { id: failed.conversationId })).title).toBe('Retried title')
  })

  it('the title task can be cancelled on its own; the conversation keeps its name and the reply is untouched', async () => {
    const { message } = await chatWith('openai', 'gpt-4o-mini', {})
    openai.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(Array.from({ length: 200 }, () => 'slow ')), delayMs: 30 })
    const result = await new Promise<Result<string | undefined>>((resolve) => {
      const handle = client.stream('chat.title', { conversationId: message.conversationId }, { onEnd: resolve })
      setTimeout(() => void handle.cancel(), 150)
    })
    expect(result.ok).toBe(false)
    expect(ok(await client.call('data.conversations.get', { id: message.conversationId })).title).toBe('')
    // It really was running: the title request reached the provider before the cancel.
    expect(openai.requestsTo('/chat/completions').at(-1)!.body).toMatchObject({ messages: [{ content: scenePrompts.title }, expect.anything()] })
    expect(core.services().store.messages.require(message.id).status).toBe('complete')
  })
})

function titleOf(conversationId: string): Promise<{ events: ChatStreamEvent[]; result: Result<string | undefined> }> {
  return new Promise((resolve) => {
    const events: ChatStreamEvent[] = []
    client.stream('chat.title', { conversationId }, { onEvent: (e) => events.push(e), onEnd: (result) => resolve({ events, result }) })
  })
}
