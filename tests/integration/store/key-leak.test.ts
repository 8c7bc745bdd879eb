import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AsyncEntry } from '@napi-rs/keyring'
import { afterAll, describe, expect, it } from 'vitest'
import { streamResult } from '../stream-result'
import { startTestCore } from '../test-core'

const SERVICE = `switchboard-test-${randomBytes(4).toString('hex')}`
// Distinctive enough that any copy of it, anywhere, is found.
const KEY = `sk-leakcheck-${randomBytes(24).toString('hex')}`
const dir = mkdtempSync(join(tmpdir(), 'sb-leak-'))

afterAll(async () => {
  await new AsyncEntry(SERVICE, 'key:openai', { linux: { store: 'secret-service' } }).deleteCredential().catch(() => false)
  rmSync(dir, { recursive: true, force: true })
})

function filesUnder(root: string): string[] {
  return readdirSync(root).flatMap((name) => {
    const path = join(root, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })
}

/** Everything the process prints while the session runs: the app's only log. */
function captureOutput() {
  const chunks: string[] = []
  const methods = ['log', 'info', 'warn', 'error', 'debug'] as const
  const saved = methods.map((m) => console[m])
  for (const m of methods) console[m] = (...args: unknown[]) => void chunks.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '))
  const out = process.stdout.write.bind(process.stdout)
  const err = process.stderr.write.bind(process.stderr)
  process.stdout.write = ((c: string | Uint8Array, ...rest: unknown[]) => (chunks.push(String(c)), (out as (...a: unknown[]) => boolean)(c, ...rest))) as typeof process.stdout.write
  process.stderr.write = ((c: string | Uint8Array, ...rest: unknown[]) => (chunks.push(String(c)), (err as (...a: unknown[]) => boolean)(c, ...rest))) as typeof process.stderr.write
  return {
    text: () => chunks.join('\n'),
    restore() {
      methods.forEach((m, i) => (console[m] = saved[i]!))
      process.stdout.write = out
      process.stderr.write = err
    }
  }
}

describe('an API key never leaves the keychain', () => {
  it('is absent from the database files, backups, the export, the output and every bridge reply after a session that used it', async () => {
    const output = captureOutput()
    const replies: unknown[] = []
    try {
      const app = await startTestCore('sb-leak-', { dataDir: dir, secrets: { service: SERVICE } })
      const core = app.core
      const ready = app.state
      expect(ready.phase).toBe('ready')
      const { client } = app
      const call = async (proc: string, input: unknown) => {
        const result = await (client.call as (p: string, i: unknown) => Promise<unknown>)(proc, input)
        replies.push(result)
        return result as { ok: boolean; value?: never }
      }
      expect(core.services().secrets.status.persistent).toBe(true)

      await call('providers.setKey', { providerId: 'openai', apiKey: KEY })
      await call('providers.list', {})
      await call('providers.list', { all: true, type: 'image' })
      // The runtime reads it, as a provider call would.
      expect(await core.services().secrets.readForRuntime('openai')).toBe(KEY)

      // Mistakes that could echo the key: a bad key name, a key pasted into a URL field or a setting.
      await call('providers.setKey', { providerId: `openai ${KEY}`, apiKey: KEY })
      await call('providers.update', { providerId: 'openai', baseURL: `not a url ${KEY}` })
      await call('providers.setCredential', { providerId: 'openai', name: 'accessKeyId', value: KEY })
      await call('data.settings.set', { patch: { openaiApiKey: KEY } })
      await call('providers.update', { providerId: 'openai', enabled: true, baseURL: 'https://api.openai.com/v1' })

      // A normal session: an agent, a conversation, a streamed reply, usage.
      const agent = (await call('data.agents.create', { name: 'Leak check' })).value as unknown as { id: string }
      const conversation = (await call('data.conversations.create', { agentId: agent.id })).value as unknown as { id: string }
      const store = core.services().store
      store.messages.create({ conversationId: conversation.id, role: 'user', content: [{ type: 'text', text: 'hello' }] })
      const writer = store.messages.beginStreaming({ conversationId: conversation.id, providerId: 'openai', modelId: 'gpt-4o' })
      writer.appendText('hi there')
      writer.finish('complete', { usage: { totalTokens: 5 } })
      store.usage.add({ scene: 'Conversation', providerId: 'openai', modelId: 'gpt-4o', usage: { totalTokens: 5 } })
      const exported = await streamResult(client, 'data.exportFile', { path: join(dir, 'export.json') })
      replies.push(exported)
      expect(exported.ok).toBe(true)
      // A backup as start-up and migrations make them.
      const { makeBackup } = await import('../../../src/core/store/backup')
      makeBackup(store.db.sqlite, dir, 'daily', 1)
      // Read the WAL before close checkpoints it away, and after.
      const walBefore = filesUnder(dir).map((f) => readFileSync(f))
      await core.close()
      const needle = Buffer.from(KEY)
      const files = filesUnder(dir)
      expect(files.some((f) => f.endsWith('.db'))).toBe(true)
      expect(files).toContain(join(dir, 'export.json'))
      for (const file of files) expect(readFileSync(file).includes(needle), file).toBe(false)
      for (const content of walBefore) expect(content.includes(needle)).toBe(false)
    } finally {
      output.restore()
    }
    expect(JSON.stringify(replies)).not.toContain(KEY)
    expect(output.text()).not.toContain(KEY)
    // The secret really was used (the test would prove nothing if the key never got stored).
    expect(await new AsyncEntry(SERVICE, 'key:openai', { linux: { store: 'secret-service' } }).getPassword()).toBe(KEY)
  })
})
