import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Secrets, type KeyringBackend } from '../../../src/core/secrets'

// A headless machine has no keychain: keys survive a restart in a file encrypted with a
// passphrase (scrypt + AES-256-GCM), and a wrong passphrase is refused with a reason.
const noKeychain: KeyringBackend = {
  get: () => Promise.reject(Object.assign(new Error('org.freedesktop.DBus.Error.ServiceUnknown'), { code: 'GenericFailure' })),
  set: () => Promise.reject(new Error('no')),
  delete: () => Promise.reject(new Error('no'))
}
const KEY = 'sk-key-file-test-0123456789abcd'

describe('the encrypted key file', () => {
  it('keeps keys across restarts when no keychain answers, never in plain text, readable by the owner only', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sb-keyfile-')), 'keys.enc')
    const first = await Secrets.open({ backend: noKeychain, keyFile: { path, passphrase: 'correct horse battery' } })
    expect(first.status).toMatchObject({ backend: 'file', persistent: true })
    await first.set('openai', KEY)
    expect(readFileSync(path, 'utf8')).not.toContain(KEY)
    expect(readFileSync(path, 'utf8')).not.toContain('openai')
    expect(statSync(path).mode & 0o077).toBe(0)

    const restarted = await Secrets.open({ backend: noKeychain, keyFile: { path, passphrase: 'correct horse battery' } })
    expect(await restarted.readForRuntime('openai')).toBe(KEY)
    await restarted.delete('openai')
    const again = await Secrets.open({ backend: noKeychain, keyFile: { path, passphrase: 'correct horse battery' } })
    expect(await again.readForRuntime('openai')).toBeUndefined()
  })

  it('a wrong passphrase or a changed file is refused, and the reason says so', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sb-keyfile-')), 'keys.enc')
    await (await Secrets.open({ backend: noKeychain, keyFile: { path, passphrase: 'right one' } })).set('openai', KEY)
    const wrong = await Secrets.open({ backend: noKeychain, keyFile: { path, passphrase: 'wrong one' } })
    expect(wrong.status.backend).toBe('memory')
    expect(wrong.status.reason).toMatch(/could not be unlocked: the passphrase is wrong/)
    expect(await wrong.readForRuntime('openai')).toBeUndefined()
    const stored = JSON.parse(readFileSync(path, 'utf8')) as { data: string }
    const flipped = Buffer.from(stored.data, 'base64')
    flipped[0] = flipped[0]! ^ 1
    writeFileSync(path, JSON.stringify({ ...stored, data: flipped.toString('base64') }))
    expect((await Secrets.open({ backend: noKeychain, keyFile: { path, passphrase: 'right one' } })).status.backend).toBe('memory')
  })

  it('without a passphrase keys stay in memory, and the reason says how to keep them', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sb-keyfile-')), 'keys.enc')
    const secrets = await Secrets.open({ backend: noKeychain, keyFile: { path } })
    expect(secrets.status.persistent).toBe(false)
    expect(secrets.status.reason).toMatch(/SWITCHBOARD_KEY_PASSPHRASE/)
    expect(secrets.status.reason).toMatch(/OPENAI_API_KEY/)
  })
})
