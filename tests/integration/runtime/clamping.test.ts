import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createProviderRuntime } from '../../../src/core/runtime/registry'
import { azureReasoningEffort } from '../../../src/core/runtime/openai-compatible/payload-rules'
import type { ChatRequest } from '../../../src/core/runtime/types'
import { startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai/index'
import { SECRET, collect, stopOf } from './helpers'

/**
 * providers.md §5, "Parameter clamping per provider before sending", and the search /
 * thinking rules: every row is asserted on the JSON body the fake server received.
 */
let fake: FakeOpenAI
beforeAll(async () => {
  fake = await startFakeOpenAI()
})
afterAll(async () => {
  await fake.close()
})
beforeEach(() => fake.reset())

async function sent(provider: string, request: Partial<ChatRequest>): Promise<Record<string, unknown>> {
  const runtime = createProviderRuntime(provider, { apiKey: SECRET, baseURL: fake.url })
  const events = await collect(runtime, { model: 'm', ...request })
  expect(stopOf(events)).toBe('stop')
  const requests = fake.requestsTo('/chat/completions')
  return requests[requests.length - 1]!.body as Record<string, unknown>
}

interface Row {
  name: string
  provider: string
  request: Partial<ChatRequest>
  expect?: Record<string, unknown>
  absent?: string[]
}

const rows: Row[] = [
  // temperature halved
  { name: 'Minimax temperature halved', provider: 'minimax', request: { temperature: 1 }, expect: { temperature: 0.5 } },
  { name: 'Mistral temperature halved', provider: 'mistral', request: { temperature: 1.2 }, expect: { temperature: 0.6 } },
  { name: 'Moonshot temperature halved', provider: 'moonshot', request: { temperature: 0.8 }, expect: { temperature: 0.4 } },
  { name: 'Zhipu temperature halved', provider: 'zhipu', request: { model: 'glm-4-plus', temperature: 1.6 }, expect: { temperature: 0.8 } },
  // temperature dropped when zero or less
  { name: 'Groq temperature 0 dropped', provider: 'groq', request: { temperature: 0 }, absent: ['temperature'] },
  { name: 'Groq temperature kept when positive', provider: 'groq', request: { temperature: 0.7 }, expect: { temperature: 0.7 } },
  { name: 'Minimax temperature 0 dropped', provider: 'minimax', request: { temperature: 0 }, absent: ['temperature'] },
  // top_p dropped unless in range, clamped 0.01..0.99
  { name: 'Minimax top_p 1 clamped to 0.99', provider: 'minimax', request: { top_p: 1 }, expect: { top_p: 0.99 } },
  { name: 'Minimax top_p 0 dropped', provider: 'minimax', request: { top_p: 0 }, absent: ['top_p'] },
  { name: 'Minimax top_p 0.001 clamped to 0.01', provider: 'minimax', request: { top_p: 0.001 }, expect: { top_p: 0.01 } },
  { name: 'Cohere top_p 1.5 dropped', provider: 'cohere', request: { top_p: 1.5 }, absent: ['top_p'] },
  { name: 'Cohere top_p 0.5 kept', provider: 'cohere', request: { top_p: 0.5 }, expect: { top_p: 0.5 } },
  // Cohere penalties only in (0, 1)
  { name: 'Cohere penalties in (0,1) kept', provider: 'cohere', request: { frequency_penalty: 0.5, presence_penalty: 0.3 }, expect: { frequency_penalty: 0.5, presence_penalty: 0.3 } },
  { name: 'Cohere penalties outside (0,1) dropped', provider: 'cohere', request: { frequency_penalty: 1, presence_penalty: 0 }, absent: ['frequency_penalty', 'presence_penalty'] },
  // OpenAI reasoning models
  {
    name: 'OpenAI o-series: system → developer, no temperature/top_p',
    provider: 'openai',
    request: { model: 'o3-mini', messages: [{ role: 'system', content: 'sys' }, { role: 'user', content: 'hi' }], temperature: 0.7, top_p: 0.9, max_tokens: 100 },
    expect: { messages: [{ role: 'developer', content: 'sys' }, { role: 'user', content: 'hi' }], max_completion_tokens: 100 },
    absent: ['temperature', 'top_p', 'max_tokens']
  },
  {
    name: 'OpenAI o1-mini: system → user',
    provider: 'openai',
    request: { model: 'o1-mini', messages: [{ role: 'system', content: 'sys' }, { role: 'user', content: 'hi' }], temperature: 1 },
    expect: { messages: [{ role: 'user', content: 'sys' }, { role: 'user', content: 'hi' }] },
    absent: ['temperature']
  },
  { name: 'OpenAI gpt-5: reasoning model rules', provider: 'openai', request: { model: 'gpt-5', temperature: 0.3, reasoning_effort: 'minimal' }, expect: { reasoning_effort: 'minimal' }, absent: ['temperature'] },
  { name: 'OpenAI gpt-4o keeps sampling params', provider: 'openai', request: { model: 'gpt-4o', temperature: 0.3, top_p: 0.8 }, expect: { temperature: 0.3, top_p: 0.8 } },
  // Qwen
  { name: 'Qwen temperature 2 dropped', provider: 'qwen', request: { model: 'qwen-max', temperature: 2 }, absent: ['temperature'] },
  { name: 'Qwen temperature 0 kept', provider: 'qwen', request: { model: 'qwen-max', temperature: 0 }, expect: { temperature: 0 } },
  { name: 'Qwen top_p 1 dropped for text models', provider: 'qwen', request: { model: 'qwen-max', top_p: 1 }, absent: ['top_p'] },
  { name: 'Qwen top_p 1 kept for vision models', provider: 'qwen', request: { model: 'qwen-vl-max-latest', top_p: 1 }, expect: { top_p: 1 } },
  { name: 'Qwen presence penalty outside -2..2 dropped', provider: 'qwen', request: { model: 'qwen-max', presence_penalty: 3 }, absent: ['presence_penalty'] },
  { name: 'Qwen presence penalty kept in range', provider: 'qwen', request: { model: 'qwen-max', presence_penalty: 1.5 }, expect: { presence_penalty: 1.5 } },
  { name: 'Qwen presence penalty dropped for old chat models', provider: 'qwen', request: { model: 'qwen-long', presence_penalty: 1 }, absent: ['presence_penalty'] },
  { name: 'Qwen frequency penalty dropped', provider: 'qwen', request: { model: 'qwen-max', frequency_penalty: 0.5 }, absent: ['frequency_penalty'] },
  // SenseNova
  {
    name: 'SenseNova keeps in-range values',
    provider: 'sensenova',
    request: { frequency_penalty: 2, temperature: 2, top_p: 0.5, max_tokens: 10 },
    expect: { frequency_penalty: 2, temperature: 2, top_p: 0.5, max_tokens: 10 }
  },
  {
    name: 'SenseNova drops out-of-range values',
    provider: 'sensenova',
    request: { frequency_penalty: 0, temperature: 0, top_p: 1, max_tokens: 0 },
    absent: ['frequency_penalty', 'temperature', 'top_p', 'max_tokens']
  },
  // SiliconCloud
  { name: 'SiliconCloud max tokens capped at 16384', provider: 'siliconcloud', request: { max_tokens: 100000 }, expect: { max_tokens: 16384 } },
  { name: 'SiliconCloud max tokens at least 1', provider: 'siliconcloud', request: { max_tokens: 0 }, expect: { max_tokens: 1 } },
  { name: 'SiliconCloud thinking budget 0 becomes 1', provider: 'siliconcloud', request: { thinking: { type: 'enabled', budget_tokens: 0 } }, expect: { enable_thinking: true, thinking_budget: 1 } },
  { name: 'SiliconCloud thinking budget capped at 32768', provider: 'siliconcloud', request: { thinking: { type: 'enabled', budget_tokens: 50000 } }, expect: { thinking_budget: 32768 } },
  // Zhipu
  { name: 'Zhipu glm-4v max tokens capped at 1024', provider: 'zhipu', request: { model: 'glm-4v-plus', max_tokens: 4096 }, expect: { max_tokens: 1024 } },
  { name: 'Zhipu glm-zero-preview capped at 15300', provider: 'zhipu', request: { model: 'glm-zero-preview', max_tokens: 20000 }, expect: { max_tokens: 15300 } },
  { name: 'Zhipu glm-4-alltools temperature/top_p clamped 0.01..0.99', provider: 'zhipu', request: { model: 'glm-4-alltools', temperature: 0, top_p: 1 }, expect: { temperature: 0.01, top_p: 0.99 } },
  // Taichu
  { name: 'Taichu temperature halved with minimum 0.01', provider: 'taichu', request: { temperature: 0 }, expect: { temperature: 0.01 } },
  { name: 'Taichu temperature halved', provider: 'taichu', request: { temperature: 1 }, expect: { temperature: 0.5 } },
  { name: 'Taichu top_p halved within 0.1..9.9', provider: 'taichu', request: { top_p: 0.1 }, expect: { top_p: 0.1 } },
  { name: 'Taichu top_p halved', provider: 'taichu', request: { top_p: 0.8 }, expect: { top_p: 0.4 } },
  // Perplexity
  { name: 'Perplexity temperature 2 dropped', provider: 'perplexity', request: { temperature: 2 }, absent: ['temperature'] },
  { name: 'Perplexity frequency penalty defaults to 1 when presence penalty is 0', provider: 'perplexity', request: { presence_penalty: 0 }, expect: { frequency_penalty: 1 }, absent: ['presence_penalty'] },
  { name: 'Perplexity presence penalty excludes frequency penalty', provider: 'perplexity', request: { presence_penalty: 0.5, frequency_penalty: 0.4 }, expect: { presence_penalty: 0.5 }, absent: ['frequency_penalty'] },
  // web search
  { name: 'Moonshot web search tool', provider: 'moonshot', request: { enabledSearch: true }, expect: { tools: [{ type: 'builtin_function', function: { name: '$web_search' } }] } },
  { name: 'Spark web search, normal strategy', provider: 'spark', request: { enabledSearch: true }, expect: { tools: [{ type: 'web_search', web_search: { enable: true, search_mode: 'normal' } }] } },
  { name: 'Stepfun web search tool', provider: 'stepfun', request: { enabledSearch: true }, expect: { tools: [{ type: 'web_search', function: { description: 'use web_search to search information on the internet' } }] } },
  { name: 'Zhipu web search, search_std', provider: 'zhipu', request: { model: 'glm-4-plus', enabledSearch: true }, expect: { tools: [{ type: 'web_search', web_search: { enable: true, search_engine: 'search_std', search_result: true } }] } },
  { name: 'Wenxin web search', provider: 'wenxin', request: { enabledSearch: true }, expect: { web_search: { enable: true, enable_citation: true, enable_trace: true } } },
  { name: 'Qwen web search, standard strategy', provider: 'qwen', request: { model: 'qwen-max', enabledSearch: true }, expect: { enable_search: true, search_options: { search_strategy: 'standard' } } },
  { name: 'OpenRouter web search via :online', provider: 'openrouter', request: { model: 'openai/gpt-4o', enabledSearch: true }, expect: { model: 'openai/gpt-4o:online' } },
  { name: 'xAI search results default 15', provider: 'xai', request: { enabledSearch: true }, expect: { search_parameters: { mode: 'auto', return_citations: true, max_search_results: 15 } } },
  { name: 'xAI search results capped at 30', provider: 'xai', request: { enabledSearch: true, searchMaxResults: 50 }, expect: { search_parameters: { max_search_results: 30 } } },
  { name: 'xAI search results at least 1', provider: 'xai', request: { enabledSearch: true, searchMaxResults: 0 }, expect: { search_parameters: { max_search_results: 1 } } },
  { name: 'No search fields without enabledSearch', provider: 'qwen', request: { model: 'qwen-max' }, absent: ['enable_search', 'search_options', 'tools'] },
  // thinking enablement
  { name: 'Volcengine thinking for doubao-seed-1-6', provider: 'volcengine', request: { model: 'doubao-seed-1-6-250615', thinking: { type: 'enabled' } }, expect: { thinking: { type: 'enabled' } } },
  { name: 'Volcengine no thinking for other models', provider: 'volcengine', request: { model: 'doubao-1-5-pro-32k', thinking: { type: 'enabled' } }, absent: ['thinking'] },
  { name: 'Qwen thinking for qwen3', provider: 'qwen', request: { model: 'qwen3-32b', thinking: { type: 'enabled', budget_tokens: 2048 } }, expect: { enable_thinking: true, thinking_budget: 2048 } },
  { name: 'Qwen thinking for qwen-plus', provider: 'qwen', request: { model: 'qwen-plus', thinking: { type: 'disabled' } }, expect: { enable_thinking: false } },
  { name: 'Qwen -thinking models always think', provider: 'qwen', request: { model: 'qwen3-235b-a22b-thinking-2507' }, expect: { enable_thinking: true } },
  { name: 'Qwen no thinking field for other models', provider: 'qwen', request: { model: 'qwen-max', thinking: { type: 'enabled' } }, absent: ['enable_thinking'] },
  // OpenRouter thinking budget
  { name: 'OpenRouter reasoning default budget 1024', provider: 'openrouter', request: { model: 'x/unknown', thinking: { type: 'enabled' } }, expect: { reasoning: { max_tokens: 1024 } } },
  { name: 'OpenRouter reasoning budget below max tokens', provider: 'openrouter', request: { model: 'x/unknown', max_tokens: 500, thinking: { type: 'enabled', budget_tokens: 4000 } }, expect: { reasoning: { max_tokens: 499 } } },
  { name: 'OpenRouter reasoning budget below the 32000 default', provider: 'openrouter', request: { model: 'x/unknown', thinking: { type: 'enabled', budget_tokens: 64000 } }, expect: { reasoning: { max_tokens: 31999 } } },
  // every provider: usage requested in the stream
  { name: 'stream_options.include_usage requested', provider: 'deepseek', request: {}, expect: { stream: true, stream_options: { include_usage: true } } }
]

describe('clamping and request shaping on the wire', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const body = await sent(row.provider, row.request)
      if (row.expect) expect(body).toMatchObject(row.expect)
      for (const key of row.absent ?? []) expect(body, `${key} should be absent`).not.toHaveProperty(key)
    })
  }

  it('OpenRouter caps the budget by the model max output from the catalogue', async () => {
    const { getModelProperty } = await import('../../../src/shared/catalogue/lookup')
    const { loadProviderModels } = await import('../../../src/shared/catalogue/loader')
    const model = (await loadProviderModels('openrouter')).find((m) => typeof m.maxOutput === 'number' && m.maxOutput < 32000)
    if (!model) throw new Error('the openrouter catalogue has no model with a small max output')
    expect(await getModelProperty(model.id, 'maxOutput', 'openrouter')).toBe(model.maxOutput)
    const body = await sent('openrouter', { model: model.id, thinking: { type: 'enabled', budget_tokens: 100000 } })
    expect(body['reasoning']).toEqual({ max_tokens: model.maxOutput! - 1 })
  })

  it("Azure 'minimal' reasoning effort becomes 'low' (shared rule for the Azure adapter)", () => {
    expect(azureReasoningEffort('minimal')).toBe('low')
    expect(azureReasoningEffort('high')).toBe('high')
    expect(azureReasoningEffort(undefined)).toBeUndefined()
  })
})
