/* eslint-disable @typescript-eslint/no-explicit-any -- wire bodies are inspected loosely in tests */
import { describe, expect, it } from 'vitest'
import { buildAnthropicPayload } from '../../../src/core/runtime/providers/anthropic/build-anthropic-payload'
import { defaultClaudeMaxTokens } from '../../../src/core/runtime/providers/anthropic/anthropic-models'

const base = { model: 'claude-3-5-sonnet-20241022', messages: [{ role: 'user' as const, content: 'hi' }] }

describe('Anthropic payload', () => {
  it('defaults max_tokens to the model max, else 4096 for claude-3-opus/haiku, else 8192', () => {
    expect(defaultClaudeMaxTokens('claude-sonnet-4-20250514')).toBe(64000)
    expect(defaultClaudeMaxTokens('claude-3-opus-20240229')).toBe(4096)
    expect(defaultClaudeMaxTokens('claude-3-haiku-20240307')).toBe(4096)
    expect(defaultClaudeMaxTokens('claude-unknown')).toBe(8192)
    expect(defaultClaudeMaxTokens('us.anthropic.claude-3-7-sonnet-20250219-v1:0')).toBe(64000)
  })

  it('halves temperature; opus-4-1 never gets temperature and top_p together', () => {
    expect(buildAnthropicPayload({ ...base, temperature: 1.2, top_p: 0.9 })).toMatchObject({ temperature: 0.6, top_p: 0.9 })
    const opus = buildAnthropicPayload({ ...base, model: 'claude-opus-4-1-20250805', temperature: 1, top_p: 0.9 })
    expect(opus.temperature).toBe(0.5)
    expect(opus.top_p).toBeUndefined()
    expect(buildAnthropicPayload({ ...base, model: 'claude-opus-4-1-20250805', top_p: 0.8 }).top_p).toBe(0.8)
  })

  it('caps the thinking budget at max_tokens − 1, defaults it to 1024, and drops sampling params', () => {
    const capped = buildAnthropicPayload({ ...base, max_tokens: 2000, temperature: 1, thinking: { type: 'enabled', budget_tokens: 5000 } })
    expect(capped.thinking).toEqual({ type: 'enabled', budget_tokens: 1999 })
    expect(capped.temperature).toBeUndefined()
    const dflt = buildAnthropicPayload({ ...base, model: 'claude-opus-4-20250514', thinking: { type: 'enabled' } })
    expect(dflt.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 })
    expect(dflt.max_tokens).toBe(32000)
  })

  it('marks system, last user block and last tool ephemeral unless caching is disabled', () => {
    const request = {
      ...base,
      messages: [{ role: 'system' as const, content: 'be brief' }, ...base.messages],
      tools: [{ type: 'function' as const, function: { name: 'a' } }, { type: 'function' as const, function: { name: 'b' } }]
    }
    const on = buildAnthropicPayload(request) as any
    expect(on.system[0].cache_control).toEqual({ type: 'ephemeral' })
    expect(on.messages[0].content[0].cache_control).toEqual({ type: 'ephemeral' })
    expect(on.tools[1].cache_control).toEqual({ type: 'ephemeral' })
    expect(on.tools[0].cache_control).toBeUndefined()
    const off = buildAnthropicPayload({ ...request, enabledContextCaching: false }) as any
    expect(JSON.stringify(off)).not.toContain('cache_control')
  })

  it('adds the web search tool with max uses when search is on', () => {
    const body = buildAnthropicPayload({ ...base, enabledSearch: true }, { webSearchMaxUses: 3 }) as any
    expect(body.tools).toEqual([{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }])
  })

  it('sends earlier thinking back with its signature, tool calls as tool_use and results as tool_result', () => {
    const body = buildAnthropicPayload({
      ...base,
      enabledContextCaching: false,
      messages: [
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: '',
          reasoning: { content: 'think', signature: 'sig-1' },
          tool_calls: [{ id: 't1', type: 'function', function: { name: 'w', arguments: '{"c":1}' } }]
        },
        { role: 'tool', tool_call_id: 't1', content: 'sunny' },
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] }
      ]
    }) as any
    expect(body.messages[1].content).toEqual([
      { type: 'thinking', thinking: 'think', signature: 'sig-1' },
      { type: 'tool_use', id: 't1', name: 'w', input: { c: 1 } }
    ])
    // The tool result and the next user turn merge: Anthropic requires alternating roles.
    expect(body.messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 't1', content: 'sunny' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }
      ]
    })
  })
})

describe('Anthropic web search results', () => {
  it('become grounding with the query; the server tool call is never a tool call for the caller', async () => {
    const { createAnthropicStreamTransformer } = await import('../../../src/core/runtime/providers/anthropic/anthropic-stream-transformer')
    const t = createAnthropicStreamTransformer()
    const events = [
      { type: 'message_start', message: { id: 'm', usage: { input_tokens: 1, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"query": "weather pa' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: 'ris"}' } },
      { type: 'content_block_stop', index: 0 },
      {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [{ type: 'web_search_result', url: 'https://a.example', title: 'A' }] }
      },
      { type: 'content_block_stop', index: 1 }
    ].flatMap((c) => t.push(c as never))
    expect(events).toEqual([{ type: 'grounding', data: { citations: [{ url: 'https://a.example', title: 'A' }], searchQueries: ['weather paris'] } }])
  })
})

describe('provider-native tools and blocks (the local API’s server tools)', () => {
  const search = { type: 'web_search_20250305', name: 'web_search', max_uses: 2 }
  const turn = [
    { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'q' } },
    { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
    { type: 'text', text: 'found', citations: null }
  ]
  const request = {
    ...base,
    messages: [
      { role: 'user' as const, content: 'search' },
      { role: 'assistant' as const, content: 'found', native: { api: 'anthropic-messages' as const, blocks: turn } },
      { role: 'user' as const, content: 'more' }
    ],
    nativeTools: { api: 'anthropic-messages' as const, tools: [search] }
  }

  it('Anthropic’s own runtime sends the server tools and the assistant turn’s blocks as given', () => {
    const body = buildAnthropicPayload(request, { nativeBlocks: true }) as any
    expect(body.tools).toEqual([search])
    expect(body.messages[1]).toEqual({ role: 'assistant', content: turn })
  })

  it('a runtime that has no server tools (Bedrock builds the same body) sends neither, only the turn’s text', () => {
    const body = buildAnthropicPayload(request) as any
    expect(body.tools).toBeUndefined()
    expect(body.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'found' }] })
  })

  it('the stream transformer passes the upstream’s block events on only when asked, before the events made of them', async () => {
    const { createAnthropicStreamTransformer } = await import('../../../src/core/runtime/providers/anthropic/anthropic-stream-transformer')
    const chunks = [
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } },
      { type: 'content_block_stop', index: 0 }
    ]
    const plain = createAnthropicStreamTransformer()
    expect(chunks.flatMap((c) => plain.push(c as never))).toEqual([{ type: 'text', data: 'hi' }])
    const native = createAnthropicStreamTransformer({ native: true })
    expect(chunks.flatMap((c) => native.push(c as never))).toEqual([
      { type: 'native', data: { api: 'anthropic-messages', event: chunks[0] } },
      { type: 'native', data: { api: 'anthropic-messages', event: chunks[1] } },
      { type: 'text', data: 'hi' },
      { type: 'native', data: { api: 'anthropic-messages', event: chunks[2] } }
    ])
  })
})
