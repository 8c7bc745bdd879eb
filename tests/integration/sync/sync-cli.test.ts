import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { syncCommand } from '../../../src/cli/commands/sync'
import { TEST_KDF } from './devices'
import { startTestCore } from '../test-core'

// Runs inside with-keyring: the command line reads the sync key from the keychain, as the app does.
async function cli(args: string[]) {
  const out = new PassThrough()
  const err = new PassThrough()
  let stdout = ''
  let stderr = ''
  out.on('data', (c: Buffer) => (stdout += c.toString()))
  err.on('data', (c: Buffer) => (stderr += c.toString()))
  const code = await syncCommand.run(args, { stdout: out, stderr: err, stdin: new PassThrough(), env: {} })
  return { code, stdout, stderr }
}

describe('switchboard sync', () => {
  it('status before set-up says how to set it up; now refuses plainly', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-sync-cli-off-'))
    const status = await cli(['status', '--data-dir', dataDir])
    expect(status.code).toBe(0)
    expect(status.stdout).toMatch(/State: off[\s\S]*Settings → Sync/)
    const now = await cli(['now', '--data-dir', dataDir])
    expect(now.code).toBe(1)
    expect(now.stderr).toMatch(/not set up/i)
    expect((await cli(['bogus'])).code).toBe(2)
  })

  it('status, now and devices on a data folder set up in the app', { timeout: 60_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-sync-cli-'))
    const folder = mkdtempSync(join(tmpdir(), 'sb-sync-cli-store-'))
    const started = await startTestCore('sb-sync-cli-off-', { dataDir, mode: 'desktop', sync: { kdf: TEST_KDF } })
    const app = started.core
    const client = started.client
    const set = await client.call('sync.setup', { store: { kind: 'folder', path: folder }, passphrase: 'correct horse battery', deviceName: 'Laptop' })
    expect(set.ok).toBe(true)
    app.services().store.conversations.create({ agentId: app.services().chat.defaultAgent().id, title: 'from the app' })
    await app.close()

    const now = await cli(['now', '--data-dir', dataDir, '--json'])
    expect(now.stderr).toBe('')
    expect(now.code).toBe(0)
    expect(JSON.parse(now.stdout)).toMatchObject({ state: 'idle', pendingChanges: 0, deviceName: 'Laptop', store: { kind: 'folder', path: folder } })
    const devices = await cli(['devices', '--data-dir', dataDir])
    expect(devices.stdout).toMatch(/^\* Laptop {2}[0-9a-f]{16} {2}last seen /)
    const status = await cli(['status', '--data-dir', dataDir])
    expect(status.stdout).toContain(`Store: folder ${folder}`)
    expect(status.stdout).toContain('Changes waiting: 0')
  })
})
