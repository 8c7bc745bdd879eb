import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import { chatCommand } from '../../../src/cli/commands/chat'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { ChatStreamEvent } from '../../../src/shared/bridge/procedures/chat'
import type { Message } from '../../../src/shared/data/message'
import { messageText } from '../../../src/shared/data/message'
import type { Result } from '../../../src/shared/errors/app-error'
import { chatChunks, startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai'
import { readyTestCore, startTestCore } from '../test-core'

// Custom OpenAI-compatible providers end to end in the core: added through the bridge, listed
// with the catalogue's providers, chatted with through the same adapter (the real openai SDK
// against a fake server), carried by export and import, and reachable from the CLI.
let fake: FakeOpenAI
let core: Core
let client: BridgeClient<Contract>
let dataDir: string

const ok = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}

beforeAll(async () => {
  fake = await startFakeOpenAI()
  dataDir = mkdtempSync(join(tmpdir(), 'sb-custom-'))
  const app = await readyTestCore('sb-custom-', { dataDir, secrets: { backend: new MemoryBackend() } })
  core = app.core
  client = app.client
})
afterAll(async () => {
  await core.close()
  await fake.close()
})
beforeEach(() => fake.reset())

function send(input: { text: string; conversationId?: string }): Promise<Result<Message>> {
  return new Promise((resolve) => {
    client.stream('chat.send', input as never, { onEvent: (_e: ChatStreamEvent) => undefined, onEnd: (r: Result<Message>) => resolve(r) })
  })
}

const list = (...ids: string[]) => ({ kind: 'json' as const, body: { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 1, owned_by: 'me' })) } })

describe('custom OpenAI-compatible providers', () => {
  it('are added with a name, address, key and typed models, and listed beside the catalogue', async () => {
    const summary = ok(
      await client.call('providers.saveCustom', {
        create: true,
        apiKey: 'sk-gateway-key-0001',
        custom: { slug: 'gateway', name: 'My Gateway', baseUrl: fake.url, monogram: 'MG', models: [{ id: 'house-model', displayName: 'House model', vision: true, functionCall: true }] }
      })
    )
    expect(summary).toMatchObject({ id: 'custom-gateway', name: 'My Gateway', hasKey: true, last4: '0001', available: true, enabled: true })
    expect(JSON.stringify(summary)).not.toContain('sk-gateway-key-0001')
    const all = ok(await client.call('providers.list', {}))
    expect(all.providers.some((p) => p.id === 'openai')).toBe(true)
    const group = all.picker.find((g) => g.provider.id === 'custom-gateway')
    // Only the server's own models: none of the 70-odd catalogue OpenAI models come along.
    expect(group?.models.map((m) => [m.id, m.displayName, m.abilities.vision, m.abilities.functionCall, m.abilities.reasoning])).toEqual([['house-model', 'House model', true, true, false]])
  })

  it('refuse a second provider with the same id', async () => {
    const again = await client.call('providers.saveCustom', { create: true, custom: { slug: 'gateway', name: 'Other', baseUrl: fake.url, models: [] } })
    expect(again.ok).toBe(false)
    if (!again.ok) expect(again.error.message).toMatch(/exists already/)
  })

  it('fetch the server model list, offered at once, through the same runtime path', async () => {
    fake.setDefault('/models', list('house-model', 'llama-3.1-8b'))
    const fetched = ok(await client.call('providers.fetchModels', { providerId: 'custom-gateway' }))
    expect(fetched.added).toEqual(['llama-3.1-8b'])
    expect(fetched.models.map((m) => [m.id, m.enabled])).toEqual([
      ['house-model', true],
      ['llama-3.1-8b', true]
    ])
    expect(fake.requestsTo('/models')[0]!.headers.authorization).toBe('Bearer sk-gateway-key-0001')
  })

  it('chat with the custom provider sends its key to its address', async () => {
    const sidebar = ok(await client.call('chat.sidebar', {}))
    ok(await client.call('data.agents.update', { id: sidebar.defaultAgentId, patch: { providerId: 'custom-gateway', modelId: 'llama-3.1-8b' } }))
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['Hi ', 'from the gateway'], {}) })
    const reply = ok(await send({ text: 'Hello' }))
    expect(messageText(reply.content)).toBe('Hi from the gateway')
    const request = fake.requestsTo('/chat/completions')[0]!
    expect((request.body as { model: string }).model).toBe('llama-3.1-8b')
    expect(request.headers.authorization).toBe('Bearer sk-gateway-key-0001')
  })

  it('work without a key (a gateway that wants none)', async () => {
    ok(await client.call('providers.saveCustom', { create: true, custom: { slug: 'nokey', name: 'No key', baseUrl: fake.url, models: [{ id: 'open-model' }] } }))
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['fine'], {}) })
    const test = ok(await client.call('providers.test', { providerId: 'custom-nokey' }))
    expect(test.modelId).toBe('open-model')
  })

  it('the CLI reaches one as custom:<id>/<model>, with the address from the data folder', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['cli ', 'reply'], {}) })
    const stdout = new PassThrough()
    const stderr = new PassThrough()
    let out = ''
    let err = ''
    stdout.on('data', (d: Buffer) => (out += d.toString()))
    stderr.on('data', (d: Buffer) => (err += d.toString()))
    const stdin = Object.assign(new PassThrough(), { isTTY: true })
    const code = await chatCommand.run(['custom:nokey/open-model', '--data-dir', dataDir, 'Hello'], { stdout, stderr, stdin, env: {} } as never)
    expect(err).toBe('')
    expect(code).toBe(0)
    expect(out).toContain('cli reply')
    expect((fake.requestsTo('/chat/completions')[0]!.body as { model: string }).model).toBe('open-model')
    const unknown = await chatCommand.run(['custom:nothere/x', '--data-dir', dataDir, 'Hello'], { stdout, stderr, stdin, env: {} } as never)
    expect(unknown).not.toBe(0)
    expect(err).toMatch(/No custom provider custom:nothere/)
  })

  it('are carried by an export into another data folder', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sb-custom-x-')), 'export.json')
    const streamed = <T>(start: (h: { onEvent(): void; onEnd(r: Result<T>): void }) => unknown) =>
      new Promise<Result<T>>((resolve) => start({ onEvent: () => undefined, onEnd: resolve }))
    ok(await streamed((h) => client.stream('data.exportFile', { path: file }, h as never)))
    const other = await startTestCore('sb-custom-b-', { secrets: { backend: new MemoryBackend() } })
    try {
      const otherClient = other.client
      ok(await streamed((h) => otherClient.stream('data.importFile', { path: file }, h as never)))
      const providers = ok(await otherClient.call('providers.list', {})).providers
      expect(providers.find((p) => p.id === 'custom-gateway')?.custom).toMatchObject({ name: 'My Gateway', baseUrl: fake.url, models: [{ id: 'house-model', vision: true }] })
      // Keys never travel in an export.
      expect(providers.find((p) => p.id === 'custom-gateway')?.hasKey).toBe(false)
    } finally {
      await other.close()
    }
  })

  it('are removed with their key', async () => {
    ok(await client.call('providers.removeCustom', { providerId: 'custom-gateway' }))
    const providers = ok(await client.call('providers.list', {})).providers
    expect(providers.some((p) => p.id === 'custom-gateway')).toBe(false)
    expect(await core.services().providers.credentials('custom-nokey')).toMatchObject({ baseURL: fake.url })
  })
})
