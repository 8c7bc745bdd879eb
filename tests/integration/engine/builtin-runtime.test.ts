import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { StreamEvent } from '../../../src/shared/stream/events'
import { createBuiltinRuntimeWith } from '../../../src/core/runtime/providers/builtin/builtin-runtime'
import type { ChatRequest, ProviderRuntime } from '../../../src/core/runtime/types'
import { encodeGguf } from '../../fixtures/gguf/gguf-writer'
import { tinyLlamaGguf } from '../../fixtures/gguf/tiny-llama'
import { engineHarness, type EngineHarness } from './engine-harness'

async function collect(stream: AsyncIterable<StreamEvent>, onEvent?: (e: StreamEvent) => void): Promise<StreamEvent[]> {
  const events: StreamEvent[] = []
  for await (const e of stream) {
    events.push(e)
    onEvent?.(e)
  }
  return events
}
const text = (events: StreamEvent[]) => events.filter((e) => e.type === 'text').map((e) => e.data as string).join('')
const stopOf = (events: StreamEvent[]) => events.find((e) => e.type === 'stop')?.data
const errorOf = (events: StreamEvent[]) => events.find((e): e is Extract<StreamEvent, { type: 'error' }> => e.type === 'error')?.data

describe('the built-in runtime with the real engine and the tiny model', () => {
  let h: EngineHarness
  let runtime: ProviderRuntime
  beforeEach(() => {
    h = engineHarness()
    h.model('tiny')
    runtime = createBuiltinRuntimeWith(() => h.engine)({}, { providerId: 'builtin' })
  })
  afterEach(async () => h.close())

  const ask = (extra: Partial<ChatRequest> = {}): ChatRequest => ({ model: 'tiny', messages: [{ role: 'user', content: 'Hello there' }], max_tokens: 16, temperature: 0, ...extra })

  it('streams a reply with real token counts, the engine speed and finish reason length', async () => {
    const events = await collect(runtime.chat!(ask()))
    const texts = events.filter((e) => e.type === 'text')
    expect(texts.length).toBeGreaterThan(1)
    expect(text(events)).toMatch(/^[\x20-\x7e]+$/)
    expect(stopOf(events)).toBe('length')
    const usage = events.find((e) => e.type === 'usage')!.data as { totalInputTokens: number; totalOutputTokens: number; totalTokens: number }
    expect(usage.totalOutputTokens).toBe(16)
    // ChatML around "Hello there": more than the words, fewer than a hundred tokens.
    expect(usage.totalInputTokens).toBeGreaterThan(5)
    expect(usage.totalInputTokens).toBeLessThan(100)
    expect(usage.totalTokens).toBe(usage.totalInputTokens + 16)
    const speed = events.at(-1)!
    expect(speed.type).toBe('speed')
    expect((speed.data as { tps: number }).tps).toBeGreaterThan(0)
    // A second turn with the same start reuses the engine's cache.
    const again = await collect(runtime.chat!(ask()))
    expect(text(again)).toBe(text(events))
  }, 60_000)

  it('stops at once when aborted, keeping what was written', async () => {
    const controller = new AbortController()
    let abortedAt = 0
    const events = await collect(runtime.chat!(ask({ max_tokens: 1500 }), { signal: controller.signal }), (e) => {
      if (e.type === 'text' && !abortedAt) {
        abortedAt = performance.now()
        controller.abort()
      }
    })
    expect(abortedAt, JSON.stringify(events).slice(0, 800)).toBeGreaterThan(0)
    expect(performance.now() - abortedAt).toBeLessThan(2000)
    expect(stopOf(events)).toBe('cancelled')
    expect(text(events).length).toBeGreaterThan(0)
    const usage = events.find((e) => e.type === 'usage')?.data as { totalOutputTokens: number } | undefined
    if (usage) expect(usage.totalOutputTokens).toBeLessThan(1500)
  }, 60_000)

  it('calls a tool through the engine (grammar-forced), then answers from its result', async () => {
    const tools: ChatRequest['tools'] = [
      { type: 'function', function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { enum: ['Paris', 'London'] } }, required: ['city'] } } }
    ]
    const events = await collect(runtime.chat!(ask({ tools, tool_choice: 'required', max_tokens: 60 })))
    expect(errorOf(events)).toBeUndefined()
    const calls = events.find((e) => e.type === 'tool_calls')!.data as Array<{ id: string; function: { name: string; arguments: string } }>
    expect(calls).toHaveLength(1)
    expect(calls[0]!.function.name).toBe('get_weather')
    expect(['Paris', 'London']).toContain((JSON.parse(calls[0]!.function.arguments) as { city: unknown }).city)
    expect(stopOf(events)).toBe('tool_calls')
    const followUp = await collect(
      runtime.chat!(
        ask({
          tools,
          messages: [
            { role: 'user', content: 'Weather in Paris?' },
            { role: 'assistant', content: null, tool_calls: [{ id: calls[0]!.id, type: 'function', function: calls[0]!.function }] },
            { role: 'tool', tool_call_id: calls[0]!.id, content: '{"temperature": 21}' }
          ]
        })
      )
    )
    expect(errorOf(followUp)).toBeUndefined()
    expect(['length', 'tool_calls', 'stop']).toContain(stopOf(followUp))
  }, 60_000)

  it('says so when a forced tool call is cut off by the token limit', async () => {
    const tools: ChatRequest['tools'] = [{ type: 'function', function: { name: 'note', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } } }]
    const events = await collect(runtime.chat!(ask({ tools, tool_choice: { type: 'function', function: { name: 'note' } }, max_tokens: 12 })))
    expect(errorOf(events)?.message).toMatch(/cut off by the token limit/)
    expect(stopOf(events)).toBe('error')
  }, 60_000)

  it('shapes the reply with a JSON schema and checks it', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string', maxLength: 8 }, ok: { type: 'boolean' } }, required: ['answer', 'ok'], additionalProperties: false }
    const events = await collect(runtime.chat!(ask({ max_tokens: 200, response_format: { type: 'json_schema', json_schema: { name: 'r', schema } } })))
    const error = errorOf(events)
    if (error) {
      // The only honest failure: the check caught what the grammar let through or the limit cut.
      expect(error.errorType).toBe('UpstreamMalformedResponse')
    } else {
      const parsed = JSON.parse(text(events)) as { answer: string; ok: boolean }
      expect(typeof parsed.answer).toBe('string')
      expect(typeof parsed.ok).toBe('boolean')
      expect(stopOf(events)).toBe('stop')
    }
  }, 60_000)

  it('reports a reply that breaks the schema (an integer out of range) instead of passing it on', async () => {
    // The engine's integer grammar ignores minimum/maximum: a range no number satisfies makes the check fail every time.
    const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 5, maximum: 4 } }, required: ['n'] }
    const events = await collect(runtime.chat!(ask({ max_tokens: 60, response_format: { type: 'json_schema', json_schema: { name: 'n', schema } } })))
    expect(errorOf(events)?.errorType).toBe('UpstreamMalformedResponse')
    expect(stopOf(events)).toBe('error')
  }, 60_000)

  it('embeds offline: one 64-dimension vector per input, with token counts', async () => {
    const result = await runtime.embeddings!({ model: 'tiny', input: ['hello world', 'another text'] })
    expect(result.embeddings).toHaveLength(2)
    expect(result.embeddings[0]).toHaveLength(64)
    expect(result.embeddings[0]).not.toEqual(result.embeddings[1])
    expect(result.usage?.totalTokens).toBeGreaterThan(2)
  }, 60_000)

  it('ends the reply as interrupted with what was written when the engine process is killed, and restarts it for the next request', async () => {
    let killed = false
    const events = await collect(runtime.chat!(ask({ max_tokens: 1500 })), (e) => {
      if (e.type === 'text' && !killed) {
        killed = true
        process.kill(h.engine.client.pid!, 'SIGKILL')
      }
    })
    expect(text(events).length).toBeGreaterThan(0)
    expect(stopOf(events)).toBe('interrupted')
    expect(errorOf(events)?.errorType).toBe('ProviderServiceUnavailable')
    expect(errorOf(events)?.message).toMatch(/SIGKILL/)
    expect(h.engine.client.starts).toBe(1)
    const next = await collect(runtime.chat!(ask()))
    expect(stopOf(next)).toBe('length')
    expect(h.engine.client.starts).toBe(2)
  }, 60_000)

  it.each([
    ['empty', Buffer.alloc(0), /empty/],
    ['truncated', encodeGguf(tinyLlamaGguf()).subarray(0, 3000), /truncated/],
    ['not-gguf', Buffer.from('<html>404 Not Found</html>'), /not a GGUF/]
  ])('refuses a %s file with a clear error, without starting the engine', async (name, bytes, message) => {
    writeFileSync(join(h.dataDir, 'models', `${name}.gguf`), bytes)
    const events = await collect(runtime.chat!(ask({ model: name })))
    expect(errorOf(events)?.errorType).toBe('ModelFileUnusable')
    expect(errorOf(events)?.status).toBe(422)
    expect(errorOf(events)?.message).toMatch(message)
    expect(stopOf(events)).toBe('error')
    expect(h.engine.client.starts).toBe(0)
  })

  it('says an architecture newer than the bundled llama.cpp is not supported by the built-in engine, and the engine stays up', async () => {
    writeFileSync(join(h.dataDir, 'models', 'future.gguf'), encodeGguf(tinyLlamaGguf({ architecture: 'futurenet9' })))
    const events = await collect(runtime.chat!(ask({ model: 'future' })))
    expect(errorOf(events)?.errorType).toBe('CapabilityNotSupported')
    expect(errorOf(events)?.message).toMatch(/"futurenet9" is not supported by the built-in engine/)
    expect(stopOf(await collect(runtime.chat!(ask())))).toBe('length')
    expect(h.engine.client.starts).toBe(1)
  }, 60_000)

  it('names an unknown model and how to add one', async () => {
    const events = await collect(runtime.chat!(ask({ model: 'nope' })))
    expect(errorOf(events)?.errorType).toBe('ModelNotFound')
    expect(errorOf(events)?.message).toMatch(/Models found: tiny/)
  })

  it('runs a .gguf file by absolute path', async () => {
    const path = join(h.dir, 'elsewhere.gguf')
    writeFileSync(path, encodeGguf(tinyLlamaGguf({ seed: 9 })))
    const events = await collect(runtime.chat!(ask({ model: path })))
    expect(stopOf(events)).toBe('length')
    expect((await h.engine.ps()).models.map((m) => m.modelId)).toEqual([path])
  }, 60_000)

  it('lists the models found on disk', async () => {
    const { models } = await runtime.models!()
    expect(models.map((m) => m.id)).toEqual(['tiny'])
  })
})
