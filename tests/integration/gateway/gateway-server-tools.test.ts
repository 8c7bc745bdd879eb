import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Anthropic from '@anthropic-ai/sdk'
import { createCore, type Core } from '../../../src/core'
import { createInProcessClient } from '../../../src/core/bridge/in-process'
import { MemoryBackend } from '../../../src/core/secrets'
import type { Result } from '../../../src/shared/errors/app-error'
import { startFakeHttpServer, type FakeServer } from '../../fixtures/fake-anthropic/fake-http-server'
import { SSE_HEADERS, anthropicEvent } from '../../fixtures/fake-anthropic/anthropic-sse'

// Anthropic's server tools (Claude Code's WebSearch sends web_search_20250305) through the local
// API to an Anthropic upstream: a fake on loopback that streams what Anthropic's API streams for
// a web search, reached through the app's real Anthropic runtime and SDK, and read by the real
// SDK on the client's side. The tools reach the upstream as the client sent them, and the
// server_tool_use / web_search_tool_result blocks come back as the upstream sent them.
const MODEL = 'claude-sonnet-5'

let dir: string
let core: Core
let url: string
let secret: string
let upstream: FakeServer

const ok = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}

const SEARCH = { type: 'web_search_20250305', name: 'web_search', max_uses: 3, allowed_domains: ['example.org'] }
const READ = { name: 'read', description: 'reads a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }
const CALLER = { type: 'direct' }
const CITATION = { type: 'web_search_result_location', url: 'https://example.org/news', title: 'News', encrypted_index: 'EqgfCioI', cited_text: 'It rained in Paris.' }

/** The content of a web-search reply as Anthropic's API gives it, in its order. */
const SEARCH_CONTENT = [
  { type: 'text', text: 'Let me search.', citations: null },
  { type: 'server_tool_use', id: 'srvtoolu_01', name: 'web_search', input: { query: 'paris weather' }, caller: CALLER },
  {
    type: 'web_search_tool_result',
    tool_use_id: 'srvtoolu_01',
    caller: CALLER,
    content: [{ type: 'web_search_result', url: 'https://example.org/news', title: 'News', encrypted_content: 'EqgfCioIARgBIiQ3YTAwMjY1Mi1', page_age: 'April 30, 2025' }]
  },
  { type: 'text', text: 'It rained in Paris.', citations: [CITATION] },
  { type: 'text', text: ' Anything else?', citations: null }
]
const SERVER_TOOL_USAGE = { web_search_requests: 1, web_fetch_requests: 0 }

/** One content block as the stream carries it: its start, its deltas, its stop. */
function blockEvents(block: Record<string, unknown>, index: number): string[] {
  const events: Array<Record<string, unknown>> = []
  if (block['type'] === 'text') {
    const citations = (block['citations'] as unknown[] | null) ?? []
    events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '', citations: block['citations'] === null ? null : [] } })
    for (const citation of citations) events.push({ type: 'content_block_delta', index, delta: { type: 'citations_delta', citation } })
    const text = block['text'] as string
    const half = Math.ceil(text.length / 2)
    events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: text.slice(0, half) } })
    events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: text.slice(half) } })
  } else if (block['type'] === 'server_tool_use' || block['type'] === 'tool_use') {
    const json = JSON.stringify(block['input'])
    events.push({ type: 'content_block_start', index, content_block: { ...block, input: {} } })
    events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: '' } })
    events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(0, 5) } })
    events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(5) } })
  } else {
    events.push({ type: 'content_block_start', index, content_block: block })
  }
  events.push({ type: 'content_block_stop', index })
  return events.map((e) => anthropicEvent(e as { type: string }))
}

/** A whole streamed reply of these blocks, as Anthropic's API sends it. */
function streamOf(content: Array<Record<string, unknown>>, stopReason = 'end_turn', serverToolUse: Record<string, number> | undefined = SERVER_TOOL_USAGE): string[] {
  return [
    anthropicEvent({ type: 'message_start', message: { id: 'msg_up', type: 'message', role: 'assistant', model: MODEL, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 30, output_tokens: 1 } } }),
    anthropicEvent({ type: 'ping' }),
    ...content.flatMap((block, index) => blockEvents(block, index)),
    anthropicEvent({
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { input_tokens: 30, output_tokens: 80, ...(serverToolUse ? { server_tool_use: serverToolUse } : {}) }
    }),
    anthropicEvent({ type: 'message_stop' })
  ]
}

let script: string[] = streamOf(SEARCH_CONTENT)

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-gateway-server-tools-'))
  upstream = await startFakeHttpServer(() => ({ headers: SSE_HEADERS, chunks: script }))
  core = createCore({ dataDir: join(dir, 'data'), mode: 'test', secrets: { backend: new MemoryBackend() }, localApi: { port: 0 } })
  const state = await core.context.init.start()
  if (state.phase !== 'ready') throw new Error(`core did not start: ${state.detail}`)
  const client = createInProcessClient(core.router).client
  ok(await client.call('providers.update', { providerId: 'anthropic', baseURL: upstream.url }))
  ok(await client.call('providers.setKey', { providerId: 'anthropic', apiKey: 'sk-ant-upstream-0123456789' }))
  ok(await client.call('providers.setModelEnabled', { providerId: 'anthropic', modelId: MODEL, enabled: true }))
  url = ok(await client.call('localApi.update', { enabled: true })).url!
  secret = ok(await client.call('localApi.createKey', { name: 'server-tools' })).secret
}, 60_000)

afterAll(async () => {
  await core?.close()
  await upstream?.close()
  rmSync(dir, { recursive: true, force: true })
})

const sdk = () => new Anthropic({ apiKey: secret, baseURL: url, maxRetries: 0 })
const lastBody = () => upstream.requests.at(-1)!.json as Record<string, unknown>
const ask = { model: `anthropic/${MODEL}`, max_tokens: 1024, tools: [READ, SEARCH] as never, messages: [{ role: 'user' as const, content: 'Weather in Paris today?' }] }

describe('Anthropic server tools through the local API to an Anthropic upstream', () => {
  it('reach the upstream exactly as sent, beside the client’s functions, and no warning is given', async () => {
    script = streamOf(SEARCH_CONTENT)
    const { response } = await sdk().messages.create(ask).withResponse()
    expect(response.headers.get('x-switchboard-warning')).toBeNull()
    const tools = lastBody()['tools'] as Array<Record<string, unknown>>
    expect(tools).toHaveLength(2)
    expect(tools[0]).toMatchObject({ name: 'read', input_schema: READ.input_schema })
    expect(tools[1]).toEqual(SEARCH)
  })

  it('other server tools (web fetch, code execution) go as sent too', async () => {
    script = streamOf([{ type: 'text', text: 'done', citations: null }], 'end_turn', undefined)
    const fetchTool = { type: 'web_fetch_20250910', name: 'web_fetch', max_uses: 2, citations: { enabled: true } }
    const codeTool = { type: 'code_execution_20250825', name: 'code_execution' }
    const { response } = await sdk()
      .messages.create({ ...ask, tools: [fetchTool, codeTool] as never })
      .withResponse()
    expect(response.headers.get('x-switchboard-warning')).toBeNull()
    expect(lastBody()['tools']).toEqual([fetchTool, codeTool])
  })

  it('not streamed: the server_tool_use and web_search_tool_result blocks come back unchanged, in order, with the citations and the server_tool_use usage', async () => {
    script = streamOf(SEARCH_CONTENT)
    const message = await sdk().messages.create(ask)
    expect(message.content).toEqual(SEARCH_CONTENT)
    expect(message.stop_reason).toBe('end_turn')
    expect(message.usage.server_tool_use).toEqual(SERVER_TOOL_USAGE)
  })

  it('streamed: the same blocks, each started, filled and stopped in the upstream’s order, and the SDK’s final message equals the upstream’s', async () => {
    script = streamOf(SEARCH_CONTENT)
    const stream = sdk().messages.stream(ask)
    const starts: Array<{ index: number; type: string }> = []
    const order: string[] = []
    for await (const event of stream) {
      if (event.type === 'content_block_start') starts.push({ index: event.index, type: event.content_block.type })
      if (event.type.startsWith('content_block_')) order.push(`${event.type}:${(event as { index: number }).index}`)
    }
    const final = await stream.finalMessage()
    expect(starts).toEqual(SEARCH_CONTENT.map((b, index) => ({ index, type: b.type })))
    // Every block is stopped before the next one starts, as Anthropic streams them.
    const starts2 = order.filter((o) => o.startsWith('content_block_start')).map((o) => Number(o.split(':')[1]))
    const stops = order.filter((o) => o.startsWith('content_block_stop')).map((o) => Number(o.split(':')[1]))
    expect(stops).toEqual(starts2)
    expect(final.content).toEqual(SEARCH_CONTENT)
    expect(final.usage.server_tool_use).toEqual(SERVER_TOOL_USAGE)
  })

  it('a turn paused by the upstream (pause_turn, a long server-tool turn) says so to the client', async () => {
    script = streamOf(SEARCH_CONTENT.slice(0, 3), 'pause_turn')
    const message = await sdk().messages.create(ask)
    expect(message.stop_reason).toBe('pause_turn')
    expect(message.content).toEqual(SEARCH_CONTENT.slice(0, 3))
  })

  it('a server search and a client tool call in one turn, then the tool_result: the history goes back to the upstream block for block', async () => {
    const toolUse = { type: 'tool_use', id: 'toolu_07', name: 'read', input: { path: 'notes.md' }, caller: CALLER }
    script = streamOf([...SEARCH_CONTENT, toolUse], 'tool_use')
    const first = await sdk().messages.create(ask)
    expect(first.stop_reason).toBe('tool_use')
    expect(first.content).toEqual([...SEARCH_CONTENT, toolUse])

    script = streamOf([{ type: 'text', text: 'Your notes agree.', citations: null }], 'end_turn', undefined)
    const second = await sdk().messages.create({
      ...ask,
      messages: [...ask.messages, { role: 'assistant', content: first.content as never }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_07', content: 'rain expected' }] }]
    })
    expect(second.content).toEqual([{ type: 'text', text: 'Your notes agree.', citations: null }])
    const messages = lastBody()['messages'] as Array<{ role: string; content: unknown }>
    expect(messages.slice(0, 2)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris today?' }] },
      { role: 'assistant', content: [...SEARCH_CONTENT, toolUse] }
    ])
    // The app's own caching breakpoint on the last user block (decision 118) is the only addition.
    expect(messages[2]).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_07', content: 'rain expected', cache_control: { type: 'ephemeral' } }] })
    expect((lastBody()['tools'] as unknown[])[1]).toEqual(SEARCH)
  })
})
