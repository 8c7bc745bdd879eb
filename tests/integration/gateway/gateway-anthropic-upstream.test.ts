import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Anthropic from '@anthropic-ai/sdk'
import type { Core } from '../../../src/core'
import { createInProcessClient } from '../../../src/core/bridge/in-process'
import { MemoryBackend } from '../../../src/core/secrets'
import type { Result } from '../../../src/shared/errors/app-error'
import { startFakeHttpServer, type FakeServer } from '../../fixtures/fake-anthropic/fake-http-server'
import { SSE_HEADERS, anthropicEvent } from '../../fixtures/fake-anthropic/anthropic-sse'
import { apiCommand } from '../../../src/cli/commands/api'
import { readyTestCore } from '../test-core'

// The local API in front of an Anthropic upstream (a fake on loopback speaking the Messages
// stream), reached through the app's real Anthropic runtime and SDK: what the upstream is sent
// (caching breakpoints, stop sequences), and what the ledger charges for what it reports.
const MODEL = 'claude-sonnet-5'
const USAGE = { input_tokens: 25, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 }
const OUTPUT_TOKENS = 57

let dir: string
let core: Core
let url: string
let upstream: FakeServer

const api = () => createInProcessClient(core.router).client

const ok = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}

const reply = (): string[] => [
  anthropicEvent({ type: 'message_start', message: { id: 'msg_up', type: 'message', role: 'assistant', model: MODEL, content: [], stop_reason: null, stop_sequence: null, usage: { ...USAGE, output_tokens: 1 } } }),
  anthropicEvent({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
  anthropicEvent({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'cached answer' } }),
  anthropicEvent({ type: 'content_block_stop', index: 0 }),
  anthropicEvent({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: OUTPUT_TOKENS } }),
  anthropicEvent({ type: 'message_stop' })
]

/** The catalogue's own prices for the model (USD per million tokens), not a copy of them. */
function cataloguePrice(unit: string): number {
  type Unit = { name: string; rate?: number; lookup?: { prices: Record<string, number> } }
  const file = JSON.parse(readFileSync(join(import.meta.dirname, '../../../catalogue/models/anthropic.json'), 'utf8')) as { models: Array<{ id: string; pricing: { units: Unit[] } }> }
  const model = file.models.find((m) => m.id === MODEL)!
  const found = model.pricing.units.find((u) => u.name === unit)!
  return found.rate ?? found.lookup!.prices['5m']!
}

const expectedCost = (): number =>
  (USAGE.input_tokens * cataloguePrice('textInput') +
    USAGE.cache_read_input_tokens * cataloguePrice('textInput_cacheRead') +
    USAGE.cache_creation_input_tokens * cataloguePrice('textInput_cacheWrite') +
    OUTPUT_TOKENS * cataloguePrice('textOutput')) /
  1_000_000

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-gateway-anthropic-'))
  upstream = await startFakeHttpServer(() => ({ headers: SSE_HEADERS, chunks: reply() }))
  core = (await readyTestCore('sb-gateway-anthropic-', { dataDir: join(dir, 'data'), secrets: { backend: new MemoryBackend() }, localApi: { port: 0 } })).core
  const client = api()
  ok(await client.call('providers.update', { providerId: 'anthropic', baseURL: upstream.url }))
  ok(await client.call('providers.setKey', { providerId: 'anthropic', apiKey: 'sk-ant-upstream-0123456789' }))
  ok(await client.call('providers.setModelEnabled', { providerId: 'anthropic', modelId: MODEL, enabled: true }))
  url = ok(await client.call('localApi.update', { enabled: true })).url!
}, 60_000)

afterAll(async () => {
  await core?.close()
  await upstream?.close()
  rmSync(dir, { recursive: true, force: true })
})

const sdk = (secret: string) => new Anthropic({ apiKey: secret, baseURL: url, maxRetries: 0 })
const lastBody = () => upstream.requests.at(-1)!.json as Record<string, unknown>

describe('an Anthropic upstream behind the local API', () => {
  it('gets the client’s cache_control breakpoints on the blocks and tools it put them on, ttl included, and no others', async () => {
    const { secret } = ok(await api().call('localApi.createKey', { name: 'cache' }))
    const hour = { type: 'ephemeral', ttl: '1h' } as const
    await sdk(secret).messages.create({
      model: `anthropic/${MODEL}`,
      max_tokens: 64,
      system: [
        { type: 'text', text: 'You are terse.' },
        { type: 'text', text: 'Long stable instructions.', cache_control: hour }
      ],
      tools: [
        { name: 'read', description: 'reads', input_schema: { type: 'object', properties: {} } },
        { name: 'write', description: 'writes', input_schema: { type: 'object', properties: {} }, cache_control: hour }
      ],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'first part' }, { type: 'text', text: 'second part', cache_control: { type: 'ephemeral' } }] },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'and now?' }
      ]
    })
    const body = lastBody()
    expect(body['system']).toEqual([
      { type: 'text', text: 'You are terse.' },
      { type: 'text', text: 'Long stable instructions.', cache_control: hour }
    ])
    const tools = body['tools'] as Array<Record<string, unknown>>
    expect(tools.map((t) => t['cache_control'])).toEqual([undefined, hour])
    expect(body['messages']).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'first part' }, { type: 'text', text: 'second part', cache_control: { type: 'ephemeral' } }] },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
      { role: 'user', content: [{ type: 'text', text: 'and now?' }] }
    ])
  })

  it('gets stop_sequences', async () => {
    const { secret } = ok(await api().call('localApi.createKey', { name: 'stop' }))
    await sdk(secret).messages.create({ model: `anthropic/${MODEL}`, max_tokens: 64, stop_sequences: ['END', '###'], messages: [{ role: 'user', content: 'count' }] })
    expect(lastBody()['stop_sequences']).toEqual(['END', '###'])
  })

  it('every token of the call is priced in the ledger at the catalogue’s rates: input, cache read, cache write and output', async () => {
    const { key, secret } = ok(await api().call('localApi.createKey', { name: 'ledger' }))
    await sdk(secret).messages.create({ model: `anthropic/${MODEL}`, max_tokens: 64, messages: [{ role: 'user', content: 'price me' }] })
    const spent = core.services().store.usage.spentByKey(key.id)
    expect(spent.calls).toBe(1)
    expect(spent.usd).toBeCloseTo(expectedCost(), 6)
  })

  it('a spend cap of one call’s catalogue price refuses the second call', async () => {
    // Just under one call's price: the first call is allowed, and what it cost reaches the cap.
    const cap = expectedCost() - 1e-6
    const { secret } = ok(await api().call('localApi.createKey', { name: 'capped', spendCapUsd: cap }))
    await sdk(secret).messages.create({ model: `anthropic/${MODEL}`, max_tokens: 64, messages: [{ role: 'user', content: 'one' }] })
    await expect(sdk(secret).messages.create({ model: `anthropic/${MODEL}`, max_tokens: 64, messages: [{ role: 'user', content: 'two' }] })).rejects.toMatchObject({ status: 429 })
  })

  it('the cache hit rate per key is on the key (Local API page) and, per key and per model, in `switchboard api usage --json`', async () => {
    const { key, secret } = ok(await api().call('localApi.createKey', { name: 'hits' }))
    await sdk(secret).messages.create({ model: `anthropic/${MODEL}`, max_tokens: 64, messages: [{ role: 'user', content: 'again' }] })
    const input = USAGE.input_tokens + USAGE.cache_read_input_tokens + USAGE.cache_creation_input_tokens
    const listed = ok(await api().call('localApi.status', {})).keys.find((k) => k.id === key.id)!
    expect(listed.cacheHitRate).toBeCloseTo(USAGE.cache_read_input_tokens / input, 6)
    let out = ''
    const io = { stdout: { write: (t: string) => ((out += t), true) }, stderr: { write: () => true }, env: {} }
    const code = await apiCommand.run(['usage', '--json', '--data-dir', join(dir, 'data')], io as never)
    expect(code).toBe(0)
    const report = JSON.parse(out) as { keys: Array<{ id: string; name: string; cacheHitRate: number; calls: number }>; models: Array<{ model: string; cacheHitRate: number; calls: number }> }
    expect(report.keys.find((k) => k.id === key.id)).toMatchObject({ name: 'hits', calls: 1 })
    expect(report.keys.find((k) => k.id === key.id)!.cacheHitRate).toBeCloseTo(USAGE.cache_read_input_tokens / input, 6)
    // Every call of this file reported the same usage: the model's rate is the same share.
    expect(report.models.find((m) => m.model === MODEL)!.cacheHitRate).toBeCloseTo(USAGE.cache_read_input_tokens / input, 6)
  })

  it('uses a changed provider key and address from the next call on (the runtime is kept only while they stay the same)', async () => {
    const { secret } = ok(await api().call('localApi.createKey', { name: 'rotate' }))
    const ask = () => sdk(secret).messages.create({ model: `anthropic/${MODEL}`, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })
    await ask()
    expect(upstream.requests.at(-1)!.headers['x-api-key']).toBe('sk-ant-upstream-0123456789')
    ok(await api().call('providers.setKey', { providerId: 'anthropic', apiKey: 'sk-ant-rotated-9876543210' }))
    await ask()
    expect(upstream.requests.at(-1)!.headers['x-api-key']).toBe('sk-ant-rotated-9876543210')
    const other = await startFakeHttpServer(() => ({ headers: SSE_HEADERS, chunks: reply() }))
    try {
      ok(await api().call('providers.update', { providerId: 'anthropic', baseURL: other.url }))
      await ask()
      expect(other.requests).toHaveLength(1)
    } finally {
      ok(await api().call('providers.update', { providerId: 'anthropic', baseURL: upstream.url }))
      ok(await api().call('providers.setKey', { providerId: 'anthropic', apiKey: 'sk-ant-upstream-0123456789' }))
      await other.close()
    }
  })
})
