import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import { isUnavailable } from '../../../src/core/services-access'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { ChatStreamEvent } from '../../../src/shared/bridge/procedures/chat'
import { messageText, type Message } from '../../../src/shared/data/message'
import type { Result } from '../../../src/shared/errors/app-error'
import { writeTinyLlamaGguf } from '../../fixtures/gguf/tiny-llama'
import { readyTestCore } from '../test-core'

// A reply from the built-in engine through the whole core: chat service, bridge, store.
let dir: string
let core: Core
let client: BridgeClient<Contract>
const ok = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-engine-app-'))
  const dataDir = join(dir, 'data')
  mkdirSync(join(dataDir, 'models'), { recursive: true })
  writeTinyLlamaGguf(join(dataDir, 'models', 'tiny.gguf'))
  const app = await readyTestCore('sb-engine-app-', { dataDir, secrets: { backend: new MemoryBackend() } })
  core = app.core
  client = app.client
  const sidebar = ok(await client.call('chat.sidebar', {}))
  ok(await client.call('data.agents.update', { id: sidebar.defaultAgentId, patch: { providerId: 'builtin', modelId: 'tiny', parameters: { maxOutputTokens: 24, temperature: 0 } } }))
}, 60_000)

afterAll(async () => {
  await core.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('the built-in engine through the app', () => {
  it('streams a reply that is stored with real usage, and the engine process holds the model (not the core)', async () => {
    const events: ChatStreamEvent[] = []
    const result = await new Promise<Result<Message>>((resolve) => {
      client.stream('chat.send', { text: 'Hello there' } as never, { onEvent: (e: ChatStreamEvent) => events.push(e), onEnd: resolve })
    })
    const reply = ok(result)
    expect(messageText(reply.content).length).toBeGreaterThan(0)
    expect(events.filter((e) => e.type === 'text').length).toBeGreaterThan(1)
    expect(reply.usage?.totalOutputTokens).toBe(24)
    const stored = ok(await client.call('chat.messages', { conversationId: reply.conversationId }))
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant'])
    const engine = core.services().engine
    if (isUnavailable(engine)) throw new Error(engine.reason)
    const ps = await engine.ps()
    expect(ps.models.map((m) => m.modelId)).toEqual(['tiny'])
    expect(ps.pid).not.toBe(process.pid)
  }, 90_000)

  it('offers the models found on disk in the picker with no key, and shows what is loaded with the real memory on the Local models page', async () => {
    const list = ok(await client.call('providers.list', {}))
    const group = list.picker.find((g) => g.provider.id === 'builtin')
    expect(group?.provider).toMatchObject({ name: 'Local (built-in)', available: true, local: true })
    expect(group?.models.map((m) => m.id)).toEqual(['tiny'])
    const status = ok(await client.call('engine.status', {}))
    expect(status.models).toMatchObject([{ id: 'tiny', source: 'library' }])
    expect(status.loaded).toMatchObject([{ modelId: 'tiny', contextSize: 2048, contextReason: 'trained' }])
    expect(status.rssBytes).toBeGreaterThan(10_000_000)
    const refused = await client.call('engine.addPath', { path: 'relative/model.gguf' })
    expect(refused.ok).toBe(false)
    expect(ok(await client.call('engine.unload', { model: 'tiny' }))).toEqual({ unloaded: true })
    expect(ok(await client.call('engine.status', {})).loaded).toEqual([])
  }, 60_000)

  it('indexes a knowledge base with the built-in engine offline and finds the document', async () => {
    const src = join(dir, 'docs')
    mkdirSync(src)
    const { writeFileSync } = await import('node:fs')
    writeFileSync(join(src, 'lighthouse.md'), 'The lighthouse keeper climbs the spiral stairs every night to light the lamp.')
    writeFileSync(join(src, 'bread.md'), 'Sourdough bread needs a starter, flour, water and salt, and a long slow rise.')
    const base = ok(await client.call('knowledge.create', { name: 'Offline', providerId: 'builtin', modelId: 'tiny' }))
    ok(await client.call('knowledge.addPaths', { kbId: base.id, paths: [src] }))
    await core.services().knowledge.idle(base.id)
    const files = ok(await client.call('knowledge.files', { kbId: base.id }))
    expect(files.map((f) => [f.name, f.status]).sort()).toEqual([
      ['bread.md', 'Success'],
      ['lighthouse.md', 'Success']
    ])
    const hits = ok(await client.call('knowledge.search', { kbIds: [base.id], query: 'lighthouse keeper lamp', topK: 2 }))
    expect(hits.length).toBeGreaterThan(0)
    expect(JSON.stringify(hits[0])).toContain('lighthouse')
  }, 120_000)
})
