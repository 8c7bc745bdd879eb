import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemoryBackend } from '../../../src/core/secrets'
import { streamResult } from '../stream-result'
import { ok, readyTestCore, type TestCore } from '../test-core'

// An export is a file a user moves to another machine or hands to someone: what belongs to this
// device alone — its local servers' addresses (which may hold a user and password) and its local
// API's settings with its keys' hashes — stays out of it, as an import would refuse them anyway.
let t: TestCore
beforeAll(async () => {
  t = await readyTestCore('sb-export-local-', { secrets: { backend: new MemoryBackend() }, localApi: { port: 0 } })
}, 60_000)
afterAll(async () => {
  await t?.close()
})

describe('an export', () => {
  it('carries the app settings and the tools, not this device’s server addresses or local API keys', async () => {
    ok(await t.client.call('local.setBaseUrl', { kind: 'ollama', baseUrl: 'http://admin:hunter2@10.0.0.5:11434' }))
    ok(await t.client.call('localApi.createKey', { name: 'laptop' }))
    ok(await t.client.call('data.settings.set', { patch: { contextLengths: { 'openai/gpt-4o-mini': 4096 } } }))
    const stored = t.core.services().store.settings.get()
    // The settings the export must leave out are there to leave out.
    expect(Object.keys(stored)).toEqual(expect.arrayContaining(['ollama', 'localApi', 'contextLengths']))
    const path = join(t.dataDir, 'export.json')
    await streamResult(t.client, 'data.exportFile', { path })
    const text = readFileSync(path, 'utf8')
    expect(text).not.toContain('hunter2')
    const settings = (JSON.parse(text) as { data: { settings: Record<string, unknown> } }).data.settings
    expect(settings).toHaveProperty('contextLengths')
    expect(settings).not.toHaveProperty('ollama')
    expect(settings).not.toHaveProperty('localApi')
  })
})
