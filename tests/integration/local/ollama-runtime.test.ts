import { afterEach, describe, expect, it } from 'vitest'
import { createProviderRuntime } from '../../../src/core/runtime/registry'
import { createOllamaRuntimeWith } from '../../../src/core/runtime/providers/ollama/ollama-runtime'
import type { ChatRequest, ProviderRuntime, PullProgress } from '../../../src/core/runtime/types'
import type { StreamEvent } from '../../../src/shared/stream/events'
import { AppErrorException } from '../../../src/shared/errors/app-error'
import { closedPortUrl, startFakeOllama, type FakeOllama, type FakeOllamaOptions } from '../../fixtures/fake-ollama'

let fake: FakeOllama | undefined
afterEach(async () => {
  await fake?.close()
  fake = undefined
})

async function setup(options: FakeOllamaOptions = {}): Promise<ProviderRuntime> {
  fake = await startFakeOllama(options)
  return createProviderRuntime('ollama', { baseURL: fake.url })
}

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = []
  for await (const event of stream) events.push(event)
  return events
}

const ask = (content: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({ model: 'llama3.2', messages: [{ role: 'user', content }], ...extra })
const chatBody = () => fake!.requests.filter((r) => r.path === '/api/chat').at(-1)!.body as Record<string, unknown> & { options: Record<string, number> }
const ofType = <T extends StreamEvent['type']>(events: StreamEvent[], type: T) => events.filter((e) => e.type === type) as Extract<StreamEvent, { type: T }>[]

describe('Ollama runtime against the fake server (real SDK)', () => {
  it('streams text, ends with stop then usage from the eval counts, then speed', async () => {
    const runtime = await setup()
    const events = await collect(runtime.chat!(ask('hello there')))
    expect(ofType(events, 'text').map((e) => e.data).join('')).toBe('You said: hello there')
    const kinds = events.map((e) => e.type)
    expect(kinds.slice(-3)).toEqual(['stop', 'usage', 'speed'])
    expect(ofType(events, 'stop')[0]!.data).toBe('stop')
    expect(ofType(events, 'usage')[0]!.data).toEqual({ inputTextTokens: 21, totalInputTokens: 21, outputTextTokens: 6, totalOutputTokens: 6, totalTokens: 27 })
  })

  it('halves the temperature, passes top_p/num_predict, and chooses num_ctx from the prompt and the model window', async () => {
    const runtime = await setup()
    await collect(runtime.chat!(ask('x'.repeat(40_000), { temperature: 1.4, top_p: 0.9, max_tokens: 1000 })))
    const { options } = chatBody()
    expect(options.temperature).toBeCloseTo(0.7)
    expect(options.top_p).toBe(0.9)
    expect(options.num_predict).toBe(1000)
    expect(options.stop).toBeUndefined()
    await collect(runtime.chat!(ask('count', { stop: ['END', '###'] })))
    expect(chatBody().options.stop).toEqual(['END', '###'])
    // 40,000 ASCII chars ≈ 10,004 tokens with the message overhead, + 1,000 output → rounded up to 11 × 1024
    expect(options.num_ctx).toBe(11 * 1024)
    expect(fake!.requests.filter((r) => r.path === '/api/show')).toHaveLength(1)
    // capped at the model's window (qwen3:0.6b: 40,960)
    await collect(runtime.chat!({ ...ask('y'.repeat(400_000)), model: 'qwen3:0.6b' }))
    expect(chatBody().options.num_ctx).toBe(40_960)
    // a short chat keeps Ollama's default
    await collect(runtime.chat!(ask('hi')))
    expect(chatBody().options.num_ctx).toBe(4096)
    expect(fake!.requests.filter((r) => r.path === '/api/show')).toHaveLength(2) // cached per model
  })

  it('uses the per-model num_ctx override', async () => {
    fake = await startFakeOllama()
    const runtime = createOllamaRuntimeWith({ numCtxOverride: (m) => (m === 'llama3.2' ? 32_768 : undefined) })({ baseURL: fake.url }, { providerId: 'ollama' })
    await collect(runtime.chat!(ask('hi')))
    expect(chatBody().options.num_ctx).toBe(32_768)
  })

  it('message.thinking and <think> in content become reasoning', async () => {
    const runtime = await setup({
      chat: () => [
        { message: { role: 'assistant', content: '', thinking: 'Let me see' } },
        { message: { role: 'assistant', content: '<thi' } },
        { message: { role: 'assistant', content: 'nk>inline thought</think>The answer' } },
        { message: { role: 'assistant', content: ' is 4.' } }
      ]
    })
    const events = await collect(runtime.chat!(ask('2+2', { thinking: { type: 'enabled' } })))
    expect(ofType(events, 'reasoning').map((e) => e.data).join('')).toBe('Let me seeinline thought')
    expect(ofType(events, 'text').map((e) => e.data).join('')).toBe('The answer is 4.')
    expect(chatBody()['think']).toBe(true)
  })

  it('tool calls → tool_calls events with JSON arguments; tools and tool results are sent in Ollama’s shape', async () => {
    const runtime = await setup({
      chat: () => [{ message: { role: 'assistant', content: '', tool_calls: [{ function: { name: 'get_weather', arguments: { city: '杭州' } } }] } }]
    })
    const events = await collect(
      runtime.chat!({
        model: 'llama3.2',
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'weather?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] },
          { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
          { role: 'tool', content: '{"temp":20}', tool_call_id: 'c1' }
        ],
        tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }]
      })
    )
    const calls = ofType(events, 'tool_calls')[0]!.data
    expect(calls[0]).toMatchObject({ type: 'function', index: 0, function: { name: 'get_weather', arguments: '{"city":"杭州"}' } })
    expect(calls[0]!.id).toMatch(/^get_weather_0_/)
    expect(ofType(events, 'stop')[0]!.data).toBe('tool_calls')
    const body = chatBody() as unknown as { messages: Record<string, unknown>[]; tools: unknown[] }
    expect(body.messages[0]).toMatchObject({ role: 'user', content: 'weather?', images: ['iVBORw0KGgo='] })
    expect(body.messages[1]).toMatchObject({ tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Paris' } } }] })
    expect(body.messages[2]).toMatchObject({ role: 'tool', tool_name: 'get_weather' })
    expect(body.tools).toHaveLength(1)
  })

  it('a model Ollama does not have → OllamaBizError with status_code and the model to pull', async () => {
    const runtime = await setup()
    const events = await collect(runtime.chat!(ask('hi', { model: 'mistral:7b' })))
    const error = ofType(events, 'error')[0]!.data
    expect(error).toMatchObject({ errorType: 'OllamaBizError', status: 472, provider: 'ollama' })
    expect(error.detail).toMatchObject({ status_code: 404, name: 'ResponseError', missingModel: 'mistral:7b' })
    expect(ofType(events, 'stop')[0]!.data).toBe('error')
  })

  it('server down (fetch failed) → OllamaServiceUnavailable with the spec text', async () => {
    const runtime = createProviderRuntime('ollama', { baseURL: await closedPortUrl() })
    const events = await collect(runtime.chat!(ask('hi'), { maxRetries: 0 }))
    expect(ofType(events, 'error')[0]!.data).toMatchObject({ errorType: 'OllamaServiceUnavailable', message: 'please check whether your ollama service is available' })
  })

  it('an unparsable base URL → InvalidOllamaArgs before any request', () => {
    expect(() => createProviderRuntime('ollama', { baseURL: 'http://exa mple:1' })).toThrow(AppErrorException)
    try {
      createProviderRuntime('ollama', { baseURL: 'ftp://host' })
    } catch (error) {
      expect((error as AppErrorException).error).toMatchObject({ errorType: 'InvalidOllamaArgs', status: 401 })
    }
  })

  it('an error line mid-stream → OllamaBizError; a reset or a stream without done → interrupted, text kept', async () => {
    let runtime = await setup({ chat: () => [{ message: { role: 'assistant', content: 'partial' } }, { __raw: '{"error":"llama runner process has terminated: signal: killed"}\n' }] })
    let events = await collect(runtime.chat!(ask('hi')))
    expect(ofType(events, 'text')[0]!.data).toBe('partial')
    expect(ofType(events, 'error')[0]!.data).toMatchObject({ errorType: 'OllamaBizError', message: 'llama runner process has terminated: signal: killed' })
    await fake!.close()

    runtime = await setup({ chat: () => [{ message: { role: 'assistant', content: 'half' } }, { __reset: true }], chatChunkDelayMs: 20 })
    events = await collect(runtime.chat!(ask('hi')))
    expect(ofType(events, 'text')[0]!.data).toBe('half')
    expect(ofType(events, 'stop')[0]!.data).toBe('interrupted')
    await fake!.close()

    // `done: true` on a raw-only chunk stops the fake from appending its final line: the stream just ends.
    runtime = await setup({ chat: () => [{ __raw: '{"message":{"role":"assistant","content":"cut"},"done":false}\n' }, { done: true, __raw: '' }] })
    events = await collect(runtime.chat!(ask('hi')))
    expect(ofType(events, 'text')[0]!.data).toBe('cut')
    expect(ofType(events, 'stop')[0]!.data).toBe('interrupted')
  })

  it('a malformed NDJSON line is dropped by the SDK and the reply continues', async () => {
    const runtime = await setup({ chat: () => [{ message: { role: 'assistant', content: 'a' } }, { __raw: '{not json\n' }, { message: { role: 'assistant', content: 'b' } }] })
    const events = await collect(runtime.chat!(ask('hi')))
    expect(ofType(events, 'text').map((e) => e.data).join('')).toBe('ab')
    expect(ofType(events, 'stop')[0]!.data).toBe('stop')
  })

  it('cancelling stops the request: error "Request was cancelled", stop cancelled', async () => {
    const runtime = await setup({ chat: () => Array.from({ length: 50 }, () => ({ message: { role: 'assistant', content: 'x' } })), chatChunkDelayMs: 20 })
    const controller = new AbortController()
    const events: StreamEvent[] = []
    for await (const event of runtime.chat!(ask('hi'), { signal: controller.signal })) {
      events.push(event)
      if (events.length === 3) controller.abort()
    }
    expect(ofType(events, 'error')[0]!.data).toMatchObject({ message: 'Request was cancelled' })
    expect(ofType(events, 'stop')[0]!.data).toBe('cancelled')
  })

  it('lists models, embeds one call per input, and pulls with raw progress', async () => {
    const runtime = await setup({ pacing: { linesPerLayer: 5, totalMs: 100 } })
    const { models } = await runtime.models!()
    expect(models.map((m) => m.id)).toEqual(['llama3.2:latest', 'qwen3:0.6b'])
    const { embeddings } = await runtime.embeddings!({ model: 'llama3.2', input: ['one', 'two', 'three'] })
    expect(embeddings).toHaveLength(3)
    expect(embeddings[0]).not.toEqual(embeddings[1])
    const calls = fake!.requests.filter((r) => r.path === '/api/embeddings').map((r) => r.body)
    expect(calls).toEqual([{ model: 'llama3.2', prompt: 'one' }, { model: 'llama3.2', prompt: 'two' }, { model: 'llama3.2', prompt: 'three' }])
    const progress: PullProgress[] = []
    for await (const p of runtime.pullModel!({ model: 'smollm2:135m', insecure: true })) progress.push(p)
    expect(progress[0]!.status).not.toBe('pulling manifest')
    expect(progress.at(-1)).toEqual({ status: 'success', model: 'smollm2:135m' })
    const failed: PullProgress[] = []
    for await (const p of runtime.pullModel!({ model: 'nope' })) failed.push(p)
    expect(failed.at(-1)).toMatchObject({ status: 'error', error: { status: 500, message: 'pull model manifest: file does not exist' } })
  })
})
