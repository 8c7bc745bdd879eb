import { describe, expect, it } from 'vitest'
import { ModelCaller, type UsageEntry } from '../../../src/core/caller/model-caller'
import type { ChatRequest, ProviderRuntime } from '../../../src/core/runtime/types'
import type { StreamEvent } from '../../../src/shared/stream/events'

/** A runtime that answers each call with the next script (events, or a thrown error). */
function scriptedRuntime(scripts: (StreamEvent[] | Error)[]): { runtime: ProviderRuntime; requests: ChatRequest[] } {
  const requests: ChatRequest[] = []
  const runtime: ProviderRuntime = {
    id: 'fake',
    async *chat(request) {
      requests.push(request)
      const script = scripts.shift()
      if (!script) throw new Error('no more scripts')
      if (script instanceof Error) throw script
      yield* script
    }
  }
  return { runtime, requests }
}

function caller(runtime: ProviderRuntime, sceneModel?: { providerId: string; modelId: string }) {
  const logged: UsageEntry[] = []
  const priced: string[] = []
  const instance = new ModelCaller({
    runtimeFor: async () => runtime,
    price: async (providerId, modelId, usage) => {
      priced.push(`${providerId}/${modelId}`)
      return { currency: 'USD', total: (usage.totalTokens ?? 0) / 1000 }
    },
    logUsage: (entry) => logged.push(entry),
    sceneModel: () => sceneModel
  })
  return { instance, logged, priced }
}

describe('the model caller', () => {
  it('prices and logs a call with its scene, conversation and message', async () => {
    const { runtime, requests } = scriptedRuntime([[{ type: 'text', data: 'hi' }, { type: 'usage', data: { totalTokens: 2000 } }, { type: 'stop', data: 'stop' }]])
    const { instance, logged } = caller(runtime)
    const result = await instance.text({ target: { providerId: 'p', modelId: 'm' }, scene: 'Conversation', messages: [{ role: 'user', content: 'q' }], params: { max_tokens: 5 }, conversationId: 'c1', messageId: 'm1' })
    expect(result).toMatchObject({ text: 'hi', cost: { total: 2 } })
    expect(requests[0]).toMatchObject({ model: 'm', max_tokens: 5, stream: true })
    expect(logged).toEqual([{ kind: 'chat', scene: 'Conversation', conversationId: 'c1', messageId: 'm1', providerId: 'p', modelId: 'm', usage: { totalTokens: 2000 }, cost: { currency: 'USD', total: 2 } }])
  })

  it('a background scene runs on the model chosen in Settings, not the call target', async () => {
    const { runtime, requests } = scriptedRuntime([[{ type: 'text', data: '"A title."' }]])
    const { instance, logged } = caller(runtime, { providerId: 'small', modelId: 'tiny' })
    const result = await instance.text({ target: { providerId: 'p', modelId: 'big' }, scene: 'Summary Topic Title', messages: [] })
    expect(requests[0]?.model).toBe('tiny')
    expect(result.text).toBe('A title.')
    expect(logged[0]).toMatchObject({ scene: 'Summary Topic Title', providerId: 'small', modelId: 'tiny' })
  })

  it('a call that throws is still logged, then the error reaches the caller', async () => {
    const { runtime } = scriptedRuntime([new Error('socket closed')])
    const { instance, logged } = caller(runtime)
    await expect(instance.text({ target: { providerId: 'p', modelId: 'm' }, scene: 'Translator', messages: [] })).rejects.toThrow('socket closed')
    expect(logged).toHaveLength(1)
    expect(logged[0]).toMatchObject({ scene: 'Translator', providerId: 'p', modelId: 'm' })
    expect(logged[0]?.usage).toBeUndefined()
  })

  it('a provider error event is logged with what was spent and thrown by text()', async () => {
    const { runtime } = scriptedRuntime([[{ type: 'usage', data: { totalTokens: 1000 } }, { type: 'error', data: { errorType: 'QuotaLimitReached', status: 429, message: 'slow down' } }]])
    const { instance, logged } = caller(runtime)
    await expect(instance.text({ target: { providerId: 'p', modelId: 'm' }, scene: 'Knowledge Base Evaluation', messages: [] })).rejects.toThrow('slow down')
    expect(logged[0]).toMatchObject({ scene: 'Knowledge Base Evaluation', usage: { totalTokens: 1000 }, cost: { total: 1 } })
  })

  it('without a target or a scene model it names the fix', async () => {
    const { runtime } = scriptedRuntime([])
    const { instance, logged } = caller(runtime)
    await expect(instance.text({ scene: 'Language Detect', messages: [] })).rejects.toThrow(/Choose a model for the scene “Language Detect” in Settings/)
    expect(logged).toEqual([])
  })

  it('a reader that stops mid-stream closes the runtime stream and logs what was produced, once', async () => {
    let closed = false
    const runtime: ProviderRuntime = {
      id: 'fake',
      async *chat() {
        try {
          yield { type: 'text', data: 'hello there' }
          yield { type: 'text', data: ' and more' }
          yield { type: 'usage', data: { totalTokens: 99 } }
        } finally {
          closed = true
        }
      }
    }
    const { instance, logged } = caller(runtime)
    const seen: string[] = []
    for await (const event of instance.run({ target: { providerId: 'p', modelId: 'm' }, scene: 'Local API', messages: [], estimateUsage: true })) {
      if (event.type === 'text') seen.push(event.data)
      break
    }
    expect(seen).toEqual(['hello there'])
    expect(closed).toBe(true)
    expect(logged).toHaveLength(1)
    expect(logged[0]).toMatchObject({ scene: 'Local API', usage: { totalOutputTokens: expect.any(Number) } })
    expect(logged[0]?.usage?.totalOutputTokens).toBeGreaterThan(0)
  })

  it('the iterator ends with the call result (model, usage, cost) after the last event', async () => {
    const { runtime } = scriptedRuntime([[{ type: 'text', data: 'a' }, { type: 'usage', data: { totalTokens: 3000 } }, { type: 'stop', data: 'stop' }]])
    const { instance, logged } = caller(runtime)
    const run = instance.run({ target: { providerId: 'p', modelId: 'm' }, scene: 'Conversation', messages: [{ role: 'user', content: 'q' }] })
    const types: string[] = []
    let next = await run.next()
    for (; !next.done; next = await run.next()) types.push(next.value.type)
    expect(types).toEqual(['text', 'usage', 'stop'])
    expect(next.value).toMatchObject({ model: { providerId: 'p', modelId: 'm' }, usage: { totalTokens: 3000 }, cost: { total: 3 }, messages: [{ role: 'user', content: 'q' }] })
    expect(await run.next()).toMatchObject({ done: true })
    expect(logged).toHaveLength(1)
  })

  it('a one-shot call passes its layers: its time limit cancels a hung provider step, which writes no line', async () => {
    const { instance, logged } = caller({ id: 'fake' })
    const hung = instance.call({
      kind: 'embedding',
      scene: 'Knowledge Base Search',
      target: { providerId: 'p', modelId: 'e' },
      timeoutMs: 50,
      invoke: ({ options }) => new Promise((_resolve, reject) => options.signal!.addEventListener('abort', () => reject(new Error('cancelled by its time limit')))),
      measure: () => ({ totalTokens: 1000 })
    })
    await expect(hung).rejects.toThrow('cancelled by its time limit')
    expect(logged).toEqual([])
    // The same call answering in time is priced from what it measured and logged with its kind, scene and duration.
    const done = await instance.call({ kind: 'embedding', scene: 'Knowledge Base Search', target: { providerId: 'p', modelId: 'e' }, timeoutMs: 1000, invoke: async () => 'ok', measure: () => ({ totalTokens: 3000 }) })
    expect(done).toMatchObject({ result: 'ok', cost: { total: 3 } })
    expect(logged).toEqual([{ kind: 'embedding', scene: 'Knowledge Base Search', providerId: 'p', modelId: 'e', durationMs: expect.any(Number), usage: { totalTokens: 3000 }, cost: { currency: 'USD', total: 3 } }])
  })
})
