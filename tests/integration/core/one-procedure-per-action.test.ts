import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import { startTestCore, type TestCore } from '../test-core'

// The bridge keeps one procedure per user action, through the service that owns its rule.
// The removed second spellings each behaved differently from the one kept; these pin the kept one.
let core: Core
let client: BridgeClient<Contract>
let app: TestCore

beforeAll(async () => {
  app = await startTestCore('sb-narrow-', { secrets: { backend: new MemoryBackend() } })
  expect(app.state.phase).toBe('ready')
  core = app.core
  client = app.client
})
afterAll(() => app.close())

describe('one procedure per action', () => {
  it('has no second spelling of deleting a message or an image, of provider settings, or of setting a key', () => {
    const names = Object.keys(core.router.contract)
    for (const removed of ['data.messages.delete', 'data.images.delete', 'data.providers.update', 'data.providers.setModelEnabled', 'secrets.set', 'secrets.delete'])
      expect(names, removed).not.toContain(removed)
    expect(names).toEqual(expect.arrayContaining(['chat.deleteMessage', 'images.delete', 'providers.update', 'providers.setModelEnabled', 'providers.setKey', 'providers.removeKey']))
  })

  it('deleting a message re-attaches its children to its parent (no dangling parent)', async () => {
    const store = core.services().store
    const agent = store.agents.create({ name: 'Tree' })
    const conversation = store.conversations.create({ agentId: agent.id })
    const root = store.messages.create({ conversationId: conversation.id, role: 'user', content: [{ type: 'text', text: 'root' }] })
    const middle = store.messages.create({ conversationId: conversation.id, role: 'assistant', parentId: root.id, content: [{ type: 'text', text: 'middle' }] })
    const left = store.messages.create({ conversationId: conversation.id, role: 'user', parentId: middle.id, content: [{ type: 'text', text: 'left' }] })
    const right = store.messages.create({ conversationId: conversation.id, role: 'user', parentId: middle.id, content: [{ type: 'text', text: 'right' }] })
    expect(await client.call('chat.deleteMessage', { messageId: middle.id })).toEqual({ ok: true, value: 1 })
    const after = await client.call('chat.messages', { conversationId: conversation.id })
    if (!after.ok) throw new Error(after.error.message)
    const ids = new Set(after.value.map((m) => m.id))
    expect(ids.has(middle.id)).toBe(false)
    for (const child of [left, right]) expect(after.value.find((m) => m.id === child.id)?.parentId).toBe(root.id)
    for (const m of after.value) if (m.parentId) expect(ids.has(m.parentId), `${m.id} points at a deleted parent`).toBe(true)
  })

  it('providers.update is the one way to set an endpoint: it refuses a non-URL and stores a URL where the runtime reads it', async () => {
    const bad = await client.call('providers.update', { providerId: 'openai', baseURL: 'javascript:alert(1)' })
    expect(bad).toMatchObject({ ok: false, error: { errorType: 'ValidationError' } })
    expect(core.services().store.providers.get('openai').baseUrl).toBeUndefined()
    const good = await client.call('providers.update', { providerId: 'openai', baseURL: 'https://proxy.example.com/v1' })
    expect(good).toMatchObject({ ok: true, value: { id: 'openai', baseURL: 'https://proxy.example.com/v1' } })
    expect(core.services().store.providers.get('openai').baseUrl).toBe('https://proxy.example.com/v1')
    // An empty value puts the default back.
    expect(await client.call('providers.update', { providerId: 'openai', baseURL: '' })).toMatchObject({ ok: true })
    expect(core.services().store.providers.get('openai').baseUrl).toBeUndefined()
  })
})
