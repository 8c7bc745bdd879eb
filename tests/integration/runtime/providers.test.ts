import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { providerCards } from '../../../catalogue/index'
import { AppErrorException } from '../../../src/shared/errors/app-error'
import { openAICompatibleProviders } from '../../../src/core/runtime/openai-compatible/providers/index'
import { MODELSCOPE_LIST_WARNING } from '../../../src/core/runtime/openai-compatible/providers/modelscope'
import { createProviderRuntime, hasNativeAdapter } from '../../../src/core/runtime/registry'
import { chatChunks, errorBody, startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai/index'
import { SECRET, collect, errorOf, stopOf, textOf } from './helpers'

/** Every OpenAI-compatible provider id chats, lists models and maps errors against the fake server. */
let fake: FakeOpenAI
beforeAll(async () => {
  fake = await startFakeOpenAI()
})
afterAll(async () => {
  await fake.close()
})
beforeEach(() => fake.reset())

const ids = Object.keys(openAICompatibleProviders).sort()
const runtimeFor = (id: string) => createProviderRuntime(id, { apiKey: SECRET, baseURL: fake.url })

/** The provider-specific list endpoints, answered with each provider's real response shape. */
function installListRoutes(f: FakeOpenAI) {
  f.setDefault('/api/fine-tuning/model_center/list', { kind: 'json', body: { rows: [{ modelCode: 'glm-4-plus', modelName: 'GLM-4-Plus', description: 'flagship' }, { modelCode: 'glm-4-flash', modelName: 'GLM-4-Flash' }], total: 2 } })
  f.setDefault('/api/models', { kind: 'json', body: [{ id: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', display_name: 'Llama 3.3 70B', display_type: 'chat', context_length: 131072 }, { id: 'BAAI/bge-large', display_type: 'embedding' }] })
  f.setDefault('/v1/llm/models', { kind: 'json', body: { data: [{ id: 'SenseChat-5' }] } })
  f.setDefault('/catalog/models', { kind: 'json', body: [{ id: 'openai/gpt-4.1', name: 'OpenAI GPT-4.1', summary: 'flagship', capabilities: ['tool-calling'], limits: { max_input_tokens: 1048576, max_output_tokens: 32768 }, supported_input_modalities: ['text', 'image'] }] })
  f.setDefault('/api/frontend/models', { kind: 'json', body: { data: [{ slug: 'openai/gpt-4o', endpoint: { supports_tool_parameters: true, supports_reasoning: false } }] } })
}

describe('every OpenAI-compatible provider id', () => {
  it('is registered for every catalogue provider served by the OpenAI wire, and the config base URL equals the card', () => {
    for (const card of providerCards) {
      const native = ['anthropic', 'google', 'vertexai', 'bedrock', 'azure', 'cloudflare', 'ollama', 'bfl', 'fal', 'builtin'].includes(card.id)
      if (native) continue
      const config = openAICompatibleProviders[card.id]
      expect(config, card.id).toBeDefined()
      // A card without a default endpoint: Azure AI has none (''), Hugging Face's router is the config's own.
      if (card.defaultBaseURL === undefined) expect([['azureai', ''], ['huggingface', 'https://router.huggingface.co/v1']]).toContainEqual([card.id, config!.baseURL])
      else expect(config!.baseURL, card.id).toBe(card.defaultBaseURL)
    }
  })

  for (const id of ids) {
    it(`${id}: chats, lists models, maps 401`, async () => {
      installListRoutes(fake)
      const runtime = runtimeFor(id)
      expect(hasNativeAdapter(id)).toBe(false)
      const events = await collect(runtime, { model: 'some-model' })
      expect(textOf(events)).toBe('Hello world')
      expect(stopOf(events)).toBe('stop')
      const chatRequest = fake.requestsTo('/chat/completions')[0]!
      expect(chatRequest.headers['authorization']).toBe(`Bearer ${SECRET}`)
      expect((chatRequest.body as { stream: boolean }).stream).toBe(true)

      const { models, warning } = await runtime.models!()
      if (id === 'modelscope') {
        // The fake answers /models; make it fail to see the warning path below.
        expect(warning).toBeUndefined()
      }
      expect(models.length).toBeGreaterThan(0)
      for (const m of models) expect(typeof m.id).toBe('string')

      fake.enqueue('/chat/completions', { kind: 'json', status: 401, body: errorBody(`Incorrect API key provided: ${SECRET}`, 'invalid_api_key') })
      const failed = await collect(runtime, { model: 'some-model' }, { maxRetries: 0 })
      const error = errorOf(failed)!
      expect(error.errorType).toBe(id === 'github' ? 'InvalidGithubToken' : 'InvalidProviderAPIKey')
      expect(error.status).toBe(401)
      expect(error.provider).toBe(id)
      expect(JSON.stringify(failed)).not.toContain(SECRET)
      expect(stopOf(failed)).toBe('error')
    })
  }
})

describe('model lists (providers.md §7)', () => {
  beforeEach(() => installListRoutes(fake))

  it('zhipu reads its paged list (pageSize 100, pageNum 1) with modelCode/modelName/description', async () => {
    const { models } = await runtimeFor('zhipu').models!()
    const request = fake.requestsTo('/api/fine-tuning/model_center/list')[0]!
    expect(request.query.get('pageSize')).toBe('100')
    expect(request.query.get('pageNum')).toBe('1')
    expect(models.map((m) => m.id)).toEqual(['glm-4-plus', 'glm-4-flash'])
    expect(models[0]!.description).toBe('flagship')
  })

  it('together reads a bare array from a different base path and keeps chat models', async () => {
    const { models } = await runtimeFor('togetherai').models!()
    expect(fake.requestsTo('/api/models')).toHaveLength(1)
    expect(models.map((m) => m.id)).toEqual(['meta-llama/Llama-3.3-70B-Instruct-Turbo'])
    expect(models[0]!.contextWindowTokens).toBe(131072)
  })

  it('sensenova lists from the separate llm base', async () => {
    const { models } = await runtimeFor('sensenova').models!()
    expect(fake.requestsTo('/v1/llm/models')).toHaveLength(1)
    expect(models.map((m) => m.id)).toEqual(['SenseChat-5'])
  })

  it('modelscope: a failing list is a warning and an empty list', async () => {
    fake.enqueue('/models', { kind: 'json', status: 401, body: errorBody('bad key') })
    const result = await runtimeFor('modelscope').models!()
    expect(result.models).toEqual([])
    expect(result.warning).toBe(MODELSCOPE_LIST_WARNING)
  })

  it('openrouter joins /models with the public frontend list; prices per million; -1 is unknown', async () => {
    fake.enqueue('/models', {
      kind: 'json',
      body: {
        data: [
          { id: 'openai/gpt-4o', name: 'GPT-4o', context_length: 128000, pricing: { prompt: '0.0000025', completion: '0.00001' }, top_provider: { max_completion_tokens: 16384 }, architecture: { input_modalities: ['text', 'image'] } },
          { id: 'openrouter/auto', name: 'Auto', context_length: 2000000, pricing: { prompt: '-1', completion: '-1' } }
        ]
      }
    })
    const { models } = await runtimeFor('openrouter').models!()
    expect(fake.requestsTo('/api/frontend/models')).toHaveLength(1)
    const gpt = models.find((m) => m.id === 'openai/gpt-4o')!
    expect(gpt.functionCall).toBe(true)
    expect(gpt.vision).toBe(true)
    const priced = JSON.stringify(gpt.pricing)
    expect(priced).toContain('2.5')
    expect(priced).toContain('10')
    const auto = models.find((m) => m.id === 'openrouter/auto')!
    expect(JSON.stringify(auto.pricing ?? {})).not.toContain('-1')
  })

  it('openrouter: a failing frontend list is ignored', async () => {
    fake.setDefault('/api/frontend/models', { kind: 'json', status: 500, body: errorBody('down') })
    const { models } = await runtimeFor('openrouter').models!()
    expect(models.length).toBeGreaterThan(0)
  })

  it('github reads its public catalogue', async () => {
    const { models } = await runtimeFor('github').models!()
    expect(fake.requestsTo('/catalog/models')).toHaveLength(1)
    expect(models[0]!.id).toBe('openai/gpt-4.1')
    expect(models[0]!.functionCall).toBe(true)
    expect(models[0]!.maxOutput).toBe(32768)
  })

  it('default lists are processed by the catalogue: display names, context, and no embedding/tts/whisper/dall-e chat entries', async () => {
    fake.enqueue('/models', {
      kind: 'json',
      body: { object: 'list', data: ['gpt-4o-mini', 'text-embedding-3-small', 'tts-1', 'whisper-1', 'dall-e-3', 'babbage-002'].map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'system' })) }
    })
    const { models } = await runtimeFor('openai').models!()
    const mini = models.find((m) => m.id === 'gpt-4o-mini')!
    expect(mini.displayName).toBe('GPT-4o mini')
    expect(mini.contextWindowTokens).toBe(128000)
    const chatIds = models.filter((m) => m.type === 'chat').map((m) => m.id)
    expect(chatIds).toEqual(['gpt-4o-mini'])
    // The catalogue knows the embedding model as such: it stays, typed, for `embed`.
    expect(models.find((m) => m.id === 'text-embedding-3-small')?.type).toBe('embedding')
    expect(models.map((m) => m.id)).not.toContain('babbage-002')
  })

  it('aihubmix and volcengine use the Responses API only when asked (apiMode)', async () => {
    await collect(runtimeFor('aihubmix'), { apiMode: 'responses' })
    expect((fake.requestsTo('/responses')[0]!.body as { store: boolean }).store).toBe(false)
    await collect(runtimeFor('volcengine'))
    expect(fake.requestsTo('/chat/completions')).toHaveLength(1)
  })

  it('xinference types its list by model_type, with model_ability and context_length; no key needed', async () => {
    // Xinference's own shape: OpenAI-style entries spread with the launched model's description.
    const entry = (id: string, description: Record<string, unknown>) => ({ id, object: 'model', created: 0, owned_by: 'xinference', model_name: id, ...description })
    fake.enqueue('/models', {
      kind: 'json',
      body: {
        object: 'list',
        data: [
          entry('qwen2.5-instruct', { model_type: 'LLM', model_ability: ['generate', 'chat', 'tools'], context_length: 32768 }),
          entry('bge-m3', { model_type: 'embedding', dimensions: 1024, max_tokens: 8192 }),
          entry('bge-reranker-v2-m3', { model_type: 'rerank', type: 'normal' })
        ]
      }
    })
    const runtime = createProviderRuntime('xinference', { baseURL: fake.url })
    const { models } = await runtime.models!()
    const qwen = models.find((m) => m.id === 'qwen2.5-instruct')!
    expect(qwen.contextWindowTokens).toBe(32768)
    expect(qwen.functionCall).toBe(true)
    expect(models.find((m) => m.id === 'bge-m3')!.type).toBe('embedding')
    expect(models.map((m) => m.id)).not.toContain('bge-reranker-v2-m3')
  })

  it('vllm reports max_model_len as the context window', async () => {
    fake.enqueue('/models', { kind: 'json', body: { object: 'list', data: [{ id: 'meta-llama/Llama-3.1-8B-Instruct', object: 'model', max_model_len: 65536 }] } })
    const { models } = await createProviderRuntime('vllm', { baseURL: fake.url }).models!()
    expect(models[0]!.contextWindowTokens).toBe(65536)
  })
})

describe('error mappings (providers.md §8)', () => {
  const cases: Array<{ id: string; status: number; body: unknown; type: string; message?: RegExp }> = [
    { id: 'groq', status: 403, body: errorBody('Forbidden'), type: 'LocationNotSupportError' },
    { id: 'siliconcloud', status: 401, body: errorBody('Invalid token'), type: 'InvalidProviderAPIKey' },
    { id: 'siliconcloud', status: 403, body: errorBody('forbidden'), type: 'ProviderBizError', message: /实名认证/ },
    { id: 'infiniai', status: 429, body: errorBody('too many'), type: 'QuotaLimitReached' },
    { id: 'openai', status: 429, body: errorBody('You exceeded your current quota', 'insufficient_quota', 'insufficient_quota'), type: 'InsufficientQuota' },
    { id: 'openai', status: 404, body: errorBody('The model `gpt-9` does not exist', 'model_not_found'), type: 'ModelNotFound' },
    { id: 'openai', status: 400, body: errorBody("This model's maximum context length is 128000 tokens", 'context_length_exceeded'), type: 'ExceededContextWindow' },
    { id: 'openai', status: 400, body: errorBody('string too long', 'string_above_max_length'), type: 'ExceededContextWindow' },
    { id: 'deepseek', status: 402, body: errorBody('Insufficient Balance'), type: 'InsufficientQuota' },
    { id: 'openai', status: 400, body: errorBody('The provider blocked this prompt.', 'content_filter', 'content_filter'), type: 'ProviderContentPolicyViolation' },
    { id: 'mistral', status: 500, body: errorBody('upstream blew up'), type: 'ProviderServiceUnavailable' }
  ]
  for (const c of cases) {
    it(`${c.id} ${c.status} → ${c.type}`, async () => {
      fake.enqueue('/chat/completions', { kind: 'json', status: c.status, body: c.body })
      const events = await collect(runtimeFor(c.id), {}, { maxRetries: 0 })
      const error = errorOf(events)!
      expect(error.errorType).toBe(c.type)
      if (c.message) expect(error.message).toMatch(c.message)
      expect(JSON.stringify(events)).not.toContain(SECRET)
    })
  }

  it('endpoints in errors are masked (remote hosts) and keys are never echoed', async () => {
    const runtime = createProviderRuntime('openai', { apiKey: SECRET, baseURL: 'http://127.0.0.1:1/v1' })
    const events = await collect(runtime, {}, { maxRetries: 0 })
    const error = errorOf(events)!
    expect(error.errorType).toBe('ProviderNetworkError')
    expect(JSON.stringify(error)).not.toContain(SECRET)
    const remote = createProviderRuntime('openai', { apiKey: SECRET, baseURL: 'https://api.example-provider.com/v1' })
    const failing = await collect(remote, {}, { maxRetries: 0, fetch: async () => { throw new TypeError('fetch failed') } })
    const text = JSON.stringify(failing)
    expect(text).not.toContain('api.example-provider.com')
    expect(text).toContain('****')
    expect(text).not.toContain(SECRET)
  })

  it('a MiniMax base_resp error inside a 200 stream is typed', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: [{ id: 'x', choices: null, base_resp: { status_code: 1008, status_msg: 'insufficient balance' } }] })
    const events = await collect(runtimeFor('minimax'))
    expect(errorOf(events)!.errorType).toBe('InsufficientQuota')
    expect(stopOf(events)).toBe('error')
  })
})

describe('credentials (providers.md §5) are checked before any network call', () => {
  it('a missing key raises InvalidProviderAPIKey and sends nothing', () => {
    const before = fake.requests.length
    for (const id of ['openai', 'deepseek', 'openrouter', 'qwen']) {
      try {
        createProviderRuntime(id, { baseURL: fake.url })
        expect.unreachable()
      } catch (error) {
        expect(error).toBeInstanceOf(AppErrorException)
        expect((error as AppErrorException).error.errorType).toBe('InvalidProviderAPIKey')
        expect((error as AppErrorException).error.status).toBe(401)
      }
    }
    expect(fake.requests.length).toBe(before)
  })

  it('local servers need no key; an unknown id needs a base URL and falls back to the generic adapter', async () => {
    for (const id of ['lmstudio', 'vllm', 'xinference']) {
      const events = await collect(createProviderRuntime(id, { baseURL: fake.url }))
      expect(textOf(events)).toBe('Hello world')
    }
    expect(() => createProviderRuntime('my-proxy', { apiKey: SECRET })).toThrow(AppErrorException)
    const custom = createProviderRuntime('my-proxy', { apiKey: SECRET, baseURL: fake.url })
    expect(hasNativeAdapter('my-proxy')).toBe(false)
    expect(textOf(await collect(custom))).toBe('Hello world')
    expect(() => createProviderRuntime('my-proxy', { apiKey: SECRET, baseURL: 'not a url' })).toThrow(/valid http/)
  })
})

describe('embeddings, speech, transcription', () => {
  it('embeddings ask for float encoding and return vectors in input order', async () => {
    fake.enqueue('/embeddings', { kind: 'json', body: { object: 'list', data: [{ index: 1, embedding: [2, 2] }, { index: 0, embedding: [1, 1] }], usage: { prompt_tokens: 4, total_tokens: 4 } } })
    const result = await runtimeFor('openai').embeddings!({ model: 'text-embedding-3-small', input: ['a', 'b'] })
    expect(result.embeddings).toEqual([
      [1, 1],
      [2, 2]
    ])
    expect((fake.requestsTo('/embeddings')[0]!.body as { encoding_format: string }).encoding_format).toBe('float')
  })

  it('text-to-speech returns the audio bytes and type', async () => {
    const result = await runtimeFor('openai').textToSpeech!({ model: 'tts-1', input: 'hello', voice: 'alloy' })
    expect(result.mimeType).toBe('audio/mpeg')
    expect([...result.audio.slice(0, 3)]).toEqual([0x49, 0x44, 0x33])
    expect(fake.requestsTo('/audio/speech')[0]!.body).toMatchObject({ model: 'tts-1', input: 'hello', voice: 'alloy' })
  })

  it('speech-to-text uploads the file as multipart and returns the text', async () => {
    const result = await runtimeFor('openai').speechToText!({ model: 'whisper-1', audio: new Uint8Array([1, 2, 3, 4]), fileName: 'clip.mp3', mimeType: 'audio/mpeg' })
    expect(result.text).toBe('hello from the fake server')
    const request = fake.requestsTo('/audio/transcriptions')[0]!
    expect(String(request.headers['content-type'])).toMatch(/multipart\/form-data/)
    expect(request.raw.toString('latin1')).toContain('filename="clip.mp3"')
  })

  it('errors of these calls are thrown as catalogue errors without the key', async () => {
    fake.enqueue('/embeddings', { kind: 'json', status: 401, body: errorBody(`bad key ${SECRET}`) })
    await expect(runtimeFor('openai').embeddings!({ model: 'x', input: 'a' })).rejects.toMatchObject({ error: { errorType: 'InvalidProviderAPIKey' } })
    fake.enqueue('/embeddings', { kind: 'json', status: 401, body: errorBody(`bad key ${SECRET}`) })
    const error = await runtimeFor('openai').embeddings!({ model: 'x', input: 'a' }).catch((e: AppErrorException) => e)
    expect(JSON.stringify((error as AppErrorException).error)).not.toContain(SECRET)
  })

  it('providers without speech do not offer it', () => {
    expect(runtimeFor('deepseek').textToSpeech).toBeUndefined()
    expect(runtimeFor('openai').textToSpeech).toBeDefined()
  })
})

describe('chat variants', () => {
  it('stream:false replays the whole reply through the same events', async () => {
    fake.enqueue('/chat/completions', {
      kind: 'json',
      body: { id: 'c1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: '<think>hmm</think>Done', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] }, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } }
    })
    const events = await collect(runtimeFor('deepseek'), { stream: false })
    expect(textOf(events)).toBe('Done')
    expect(events.find((e) => e.type === 'tool_calls')).toBeDefined()
    expect(stopOf(events)).toBe('tool_calls')
    expect(events.find((e) => e.type === 'usage')).toBeDefined()
  })

  it('the Responses API is used (store false) for models that need it, with text, stop and usage', async () => {
    const events = await collect(runtimeFor('openai'), { model: 'o3-pro', messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hi' }], temperature: 0.5, reasoning_effort: 'high' })
    expect(textOf(events)).toBe('Hello world')
    expect(stopOf(events)).toBe('stop')
    const body = fake.requestsTo('/responses')[0]!.body as Record<string, unknown>
    expect(body['store']).toBe(false)
    expect(body['temperature']).toBeUndefined()
    expect(body['reasoning']).toEqual({ effort: 'high', summary: 'auto' })
    expect((body['input'] as Array<{ role: string }>)[0]!.role).toBe('developer')
    expect(fake.requestsTo('/chat/completions')).toHaveLength(0)
  })

  it('usage is priced with the catalogue when the model has pricing', async () => {
    const events = await collect(runtimeFor('openai'), { model: 'gpt-4o-mini' })
    const usage = events.find((e) => e.type === 'usage')
    expect(usage?.type === 'usage' && usage.data.cost).toBeGreaterThan(0)
  })

  it('reasoning from reasoning_content and from split <think> tags, tool calls merged by index', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['<th', 'ink>plan', ' more</thi', 'nk>Answer'], { reasoning: ['pre-'] }) })
    const events = await collect(runtimeFor('deepseek'))
    expect(events.filter((e) => e.type === 'reasoning').map((e) => e.data).join('')).toBe('pre-plan more')
    expect(textOf(events)).toBe('Answer')
  })
})
