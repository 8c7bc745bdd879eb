import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Core, CoreOptions } from '../../../src/core'
import { createInProcessClient } from '../../../src/core/bridge/in-process'
import { MemoryBackend } from '../../../src/core/secrets'
import type { Result } from '../../../src/shared/errors/app-error'
import { readyTestCore, type TestCore, type TestCoreOptions } from '../test-core'
import { writeTinyLlamaGguf } from '../../fixtures/gguf/tiny-llama'
import { startFakeHttpServer, type FakeServer } from '../../fixtures/fake-anthropic/fake-http-server'
import { SSE_HEADERS, anthropicEvent } from '../../fixtures/fake-anthropic/anthropic-sse'

// The Local API page's "Test" button: each agent's first request shape, sent over HTTP to the
// core's own running gateway with a key made for it, in front of a fake Anthropic upstream on
// loopback (through the real Anthropic runtime) and the built-in engine with a tiny model.
const MODEL = 'claude-sonnet-5'
let dir: string
let core: Core
let upstream: FakeServer
const cores: TestCore[] = []

const ok = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}
const api = (c: Core = core) => createInProcessClient(c.router).client

const reply = (): string[] => [
  anthropicEvent({ type: 'message_start', message: { id: 'msg_up', type: 'message', role: 'assistant', model: MODEL, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } } }),
  anthropicEvent({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
  anthropicEvent({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi from upstream' } }),
  anthropicEvent({ type: 'content_block_stop', index: 0 }),
  anthropicEvent({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 4 } }),
  anthropicEvent({ type: 'message_stop' })
]

async function start(extra: TestCoreOptions = {}): Promise<Core> {
  const dataDir = join(dir, `data-${cores.length}`)
  mkdirSync(join(dataDir, 'models'), { recursive: true })
  writeTinyLlamaGguf(join(dataDir, 'models', 'tiny.gguf'))
  const made = await readyTestCore('sb-agent-test-', { dataDir, secrets: { backend: new MemoryBackend() }, localApi: { port: 0 }, ...extra })
  cores.push(made)
  return made.core
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-agent-test-'))
  upstream = await startFakeHttpServer(() => ({ headers: SSE_HEADERS, chunks: reply() }))
  core = await start()
  const client = api()
  ok(await client.call('providers.update', { providerId: 'anthropic', baseURL: upstream.url }))
  ok(await client.call('providers.setKey', { providerId: 'anthropic', apiKey: 'sk-ant-upstream-0123456789' }))
  ok(await client.call('providers.setModelEnabled', { providerId: 'anthropic', modelId: MODEL, enabled: true }))
}, 60_000)

afterAll(async () => {
  for (const c of cores) await c.close()
  await upstream?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('localApi.testAgent', () => {
  it('says the local API is off and how to turn it on, before it runs', async () => {
    const result = ok(await api().call('localApi.testAgent', { agent: 'openai', model: 'builtin/tiny' }))
    expect(result).toMatchObject({ ok: false, fix: expect.stringContaining('Turn the local API on') })
  })

  it('sends Claude Code’s first request (a system turn mid-conversation, adaptive thinking, a tool) to an Anthropic upstream and answers with its text', async () => {
    ok(await api().call('localApi.update', { enabled: true }))
    const before = upstream.requests.length
    const result = ok(await api().call('localApi.testAgent', { agent: 'claude-code', model: `anthropic/${MODEL}` }))
    expect(result).toMatchObject({ ok: true, text: 'hi from upstream' })
    // It went over HTTP through the gateway to the upstream, as the agent's would.
    expect(upstream.requests.length).toBe(before + 1)
    const sent = upstream.requests.at(-1)!.json as { messages: Array<{ role: string }>; tools: Array<{ name: string }>; thinking?: unknown }
    expect(sent.tools.map((t) => t.name)).toEqual(['Read'])
    expect(sent.messages.map((m) => m.role)).toContain('user')
    // The test's key is the core's own: no key appears on the page.
    expect(ok(await api().call('localApi.status', {})).keys).toEqual([])
  })

  it('sends Codex’s first request to the built-in engine: the namespace and web_search tools are left out with a warning, and the text comes back', async () => {
    const result = ok(await api().call('localApi.testAgent', { agent: 'codex', model: 'builtin/tiny' }))
    expect(result.ok).toBe(true)
    if (!result.ok) return
    expect(result.text.length).toBeGreaterThan(0)
    expect(result.warning).toMatch(/namespace/)
    expect(result.warning).toMatch(/web_search/)
  }, 120_000)

  it('sends a Chat Completions call to the built-in engine', async () => {
    const result = ok(await api().call('localApi.testAgent', { agent: 'openai', model: 'builtin/tiny' }))
    expect(result).toMatchObject({ ok: true, text: expect.any(String) })
  }, 120_000)

  it('answers a model the local API does not offer with the gateway’s 404 and what to pick instead', async () => {
    const result = ok(await api().call('localApi.testAgent', { agent: 'openai', model: 'builtin/../../etc/passwd' }))
    expect(result).toMatchObject({ ok: false, status: 404, fix: expect.stringContaining('/v1/models') })
  })

  it('is refused to a remote browser-mode client, as changing the local API is', async () => {
    const remote = await start({ mode: 'browser', access: { password: 'a long access password' } as CoreOptions['access'] })
    const result = await api(remote).call('localApi.testAgent', { agent: 'openai', model: 'builtin/tiny' })
    expect(result).toMatchObject({ ok: false, error: { status: 403 } })
  })
})
