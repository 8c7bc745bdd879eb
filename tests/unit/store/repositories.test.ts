import { afterEach, describe, expect, it } from 'vitest'
import { AppErrorException } from '../../../src/shared/errors/app-error'
import { openTemp, seed } from './helpers'

let env: ReturnType<typeof openTemp>
afterEach(() => env?.cleanup())

describe('repositories on a real database', () => {
  it('creates, reads, updates and deletes agents; deleting an agent takes its conversations and messages', () => {
    env = openTemp()
    const { store } = env
    const agent = store.agents.create({ name: 'Translator', systemPrompt: 'Translate.', tags: ['lang'], parameters: { temperature: 0.2 }, providerId: 'openai', modelId: 'gpt-4o' })
    expect(store.agents.get(agent.id)).toEqual(agent)
    const updated = store.agents.update(agent.id, { name: 'Translator 2', tags: ['lang', 'zh'] })
    expect(store.agents.require(agent.id)).toMatchObject({ name: 'Translator 2', tags: ['lang', 'zh'], systemPrompt: 'Translate.', parameters: { temperature: 0.2 } })
    expect(updated.createdAt).toBe(agent.createdAt)
    const conversation = store.conversations.create({ agentId: agent.id })
    store.messages.create({ conversationId: conversation.id, role: 'user', content: [{ type: 'text', text: 'hi' }] })
    expect(store.agents.delete(agent.id)).toBe(true)
    expect(store.conversations.get(conversation.id)).toBeUndefined()
    expect(store.messages.count()).toBe(0)
  })

  it('refuses a conversation for an agent that does not exist, with NotFound', () => {
    env = openTemp()
    expect(() => env.store.conversations.create({ agentId: 'nope' })).toThrowError(AppErrorException)
    try {
      env.store.conversations.create({ agentId: 'nope' })
    } catch (error) {
      expect((error as AppErrorException).error).toMatchObject({ errorType: 'NotFound', status: 404 })
    }
  })

  it('keeps topics within a conversation; deleting a topic keeps its messages', () => {
    env = openTemp()
    const { conversation } = seed(env.store)
    const topic = env.store.conversations.createTopic(conversation.id, 'Plans')
    const m = env.store.messages.create({ conversationId: conversation.id, topicId: topic.id, role: 'user', content: [{ type: 'text', text: 'x' }] })
    expect(env.store.messages.list(conversation.id, { topicId: topic.id }).map((x) => x.id)).toEqual([m.id])
    expect(env.store.conversations.renameTopic(topic.id, 'Trips').title).toBe('Trips')
    env.store.conversations.deleteTopic(topic.id)
    expect(env.store.messages.require(m.id).topicId).toBeUndefined()
  })

  it('round-trips every message field and pages a conversation newest-first, returned oldest-first', () => {
    env = openTemp()
    const { conversation } = seed(env.store)
    const full = env.store.messages.create({
      conversationId: conversation.id,
      role: 'assistant',
      parentId: 'p1',
      content: [{ type: 'text', text: 'answer' }, { type: 'image_file', fileId: 'f1', mimeType: 'image/png', width: 2, height: 3 }],
      reasoning: { text: 'think', signature: 'sig' },
      toolCalls: [{ id: 'c1', type: 'function', function: { name: 'search', arguments: '{"q":1}' } }],
      toolResults: [{ toolCallId: 'c1', content: 'result' }],
      files: ['f1'],
      grounding: { citations: [{ url: 'https://example.com' }] },
      providerId: 'anthropic',
      modelId: 'claude',
      usage: { totalInputTokens: 10, totalOutputTokens: 5, totalTokens: 15 },
      cost: { currency: 'USD', total: 0.01 },
      speed: { tps: 40, ttft: 300 },
      error: { errorType: 'ProviderBizError', message: 'x' },
      status: 'error'
    })
    expect(env.store.messages.require(full.id)).toEqual(full)

    const ids = [full.id]
    for (let i = 0; i < 120; i++) ids.push(env.store.messages.create({ conversationId: conversation.id, role: 'user', content: [{ type: 'text', text: `m${i}` }], createdAt: full.createdAt + i + 1 }).id)
    const first = env.store.messages.page(conversation.id, { limit: 50 })
    expect(first.hasMore).toBe(true)
    expect(first.messages.map((m) => m.id)).toEqual(ids.slice(-50))
    const second = env.store.messages.page(conversation.id, { limit: 50, before: first.messages[0]!.id })
    expect(second.messages.map((m) => m.id)).toEqual(ids.slice(-100, -50))
    const third = env.store.messages.page(conversation.id, { limit: 50, before: second.messages[0]!.id })
    expect(third.hasMore).toBe(false)
    expect(third.messages.map((m) => m.id)).toEqual(ids.slice(0, 21))
  })

  it('keeps per-model enabled overrides in provider settings, and never a key column', () => {
    env = openTemp()
    expect(env.store.providers.get('openai')).toMatchObject({ enabled: false, fetchedModels: [], modelOverrides: {} })
    env.store.providers.update('openai', { enabled: true, baseUrl: 'https://proxy.example/v1', fetchedModels: [{ id: 'gpt-x', enabled: false }] })
    env.store.providers.setModelEnabled('openai', 'gpt-x', true)
    env.store.providers.setModelEnabled('openai', 'gpt-y', false)
    expect(env.store.providers.get('openai')).toMatchObject({
      enabled: true,
      baseUrl: 'https://proxy.example/v1',
      modelOverrides: { 'gpt-x': { enabled: true }, 'gpt-y': { enabled: false } }
    })
    const columns = (env.store.db.sqlite.pragma('table_info(provider_settings)') as Array<{ name: string }>).map((c) => c.name)
    expect(columns.some((c) => /key|secret/i.test(c))).toBe(false)
  })

  it('logs usage by scene and operation and sums it', () => {
    env = openTemp()
    const { usage } = env.store
    usage.add({ scene: 'Conversation', providerId: 'openai', modelId: 'a', usage: { totalTokens: 100 }, cost: { currency: 'USD', total: 0.5 } })
    usage.add({ scene: 'Conversation', operation: 'Regenerate Message', providerId: 'openai', modelId: 'a', usage: { totalInputTokens: 20, totalOutputTokens: 30 }, cost: { currency: 'USD', total: 0.25 } })
    usage.add({ scene: 'Summary Topic Title', providerId: 'openai', modelId: 'b', usage: { totalTokens: 7 } })
    expect(usage.list({ scene: 'Conversation' })).toHaveLength(2)
    const byScene = usage.summary('scene')
    expect(byScene.find((r) => r.key === 'Conversation')).toMatchObject({ calls: 2, totalTokens: 150, cost: 0.75, currency: 'USD' })
    expect(byScene.find((r) => r.key === 'Summary Topic Title')).toMatchObject({ calls: 1, totalTokens: 7, cost: 0 })
    expect(usage.summary('operation').find((r) => r.key === 'Regenerate Message')?.calls).toBe(1)
  })

  it('merges app settings, deletes with null, and refuses keys named like secrets', () => {
    env = openTemp()
    env.store.settings.set({ language: 'zh-CN', theme: 'dark' })
    expect(env.store.settings.set({ theme: null, sendKey: 'enter' })).toEqual({ language: 'zh-CN', sendKey: 'enter' })
    expect(() => env.store.settings.set({ openaiApiKey: 'sk-should-not-be-here' })).toThrow(/keychain/)
  })

  it('keeps file records with paths inside the data folder only', () => {
    env = openTemp()
    const file = env.store.files.add({ path: 'files/ab/cd.png', name: 'cd.png', mimeType: 'image/png', size: 10, sha256: 'a'.repeat(64) })
    expect(env.store.files.findBySha256('a'.repeat(64))).toEqual(file)
    expect(() => env.store.files.add({ path: '../etc/passwd', name: 'x', mimeType: 'x', size: 1, sha256: 'b' })).toThrow(/inside the data folder/)
    expect(() => env.store.files.add({ path: '/etc/passwd', name: 'x', mimeType: 'x', size: 1, sha256: 'b' })).toThrow(/inside the data folder/)
  })

  it('tracks image generations and marks unfinished ones as errors at the next start', () => {
    env = openTemp()
    const done = env.store.images.create({ prompt: 'a cat', providerId: 'openai', modelId: 'gpt-image-1', parameters: { size: '1024x1024' } })
    env.store.images.update(done.id, { status: 'Success', results: [{ fileId: 'f', width: 1024, height: 1024 }], cost: { currency: 'USD', total: 0.04 } })
    const pending = env.store.images.create({ prompt: 'a dog', providerId: 'openai', modelId: 'gpt-image-1' })
    expect(env.store.images.repairUnfinished()).toBe(1)
    expect(env.store.images.get(pending.id)).toMatchObject({ status: 'Error', error: { message: expect.stringMatching(/closed before/) } })
    expect(env.store.images.get(done.id)).toMatchObject({ status: 'Success', results: [{ width: 1024 }] })
  })
})
