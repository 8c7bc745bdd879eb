import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { AsyncEntry } from '@napi-rs/keyring'
import { Secrets, type KeyringBackend } from '../../../src/core/secrets'

// A service name of our own per run: the test never reads or writes a real user's entries.
const SERVICE = `switchboard-test-${randomBytes(4).toString('hex')}`
const KEY = `sk-test-${randomBytes(12).toString('hex')}`
const names = new Set<string>()

afterAll(async () => {
  for (const name of names) await new AsyncEntry(SERVICE, `key:${name}`, { linux: { store: 'secret-service' } }).deleteCredential().catch(() => false)
})

/** A keychain that does not answer, the way a missing Secret Service or a locked one fails. */
const failing = (message: string): KeyringBackend => {
  const fail = async (): Promise<never> => {
    throw Object.assign(new Error(message), { code: 'GenericFailure' })
  }
  return { get: fail, set: fail, delete: fail }
}

describe('keys in the real OS keychain (gnome-keyring over D-Bus)', () => {
  it('sets a key, reports { hasKey, last4 }, reads it for the runtime, and a later session still has it', async () => {
    const secrets = await Secrets.open({ service: SERVICE })
    expect(secrets.status).toEqual({ backend: 'keychain', persistent: true })
    names.add('openai')
    expect(await secrets.set('openai', `  ${KEY}\n`)).toEqual({ name: 'openai', hasKey: true, last4: KEY.slice(-4) })
    expect(await secrets.has('openai')).toBe(true)
    expect(await secrets.last4('openai')).toBe(KEY.slice(-4))
    expect(await secrets.readForRuntime('openai')).toBe(KEY)

    // The keychain itself holds it (not our memory): a fresh instance and the raw library see it.
    const later = await Secrets.open({ service: SERVICE })
    expect(await later.readForRuntime('openai')).toBe(KEY)
    expect(await new AsyncEntry(SERVICE, 'key:openai', { linux: { store: 'secret-service' } }).getPassword()).toBe(KEY)

    expect(await later.delete('openai')).toEqual({ name: 'openai', hasKey: false })
    expect(await secrets.info('openai')).toEqual({ name: 'openai', hasKey: false })
    expect(await secrets.readForRuntime('openai')).toBeUndefined()
  })

  it('gives no last4 for a key too short to hide the rest', async () => {
    const secrets = await Secrets.open({ service: SERVICE })
    names.add('short')
    expect(await secrets.set('short', 'abc123')).toEqual({ name: 'short', hasKey: true })
    await secrets.delete('short')
  })

  it('refuses an empty key and a bad name without echoing what was given', async () => {
    const secrets = await Secrets.open({ service: SERVICE })
    await expect(secrets.set('openai', '   ')).rejects.toThrow(/empty/)
    const error = await secrets.set(`bad name ${KEY}`, KEY).catch((e: Error) => e)
    expect(String((error as Error).message)).not.toContain(KEY)
    expect(JSON.stringify(error)).not.toContain(KEY)
  })
})

describe('when no keychain answers', () => {
  it('keeps keys in memory for the session and reports why, naming the fix', async () => {
    const secrets = await Secrets.open({ backend: failing('DBus error: org.freedesktop.DBus.Error.ServiceUnknown') })
    expect(secrets.status).toMatchObject({ backend: 'memory', persistent: false })
    expect(secrets.status.reason).toMatch(/No system keychain answered.*GNOME Keyring or KWallet.*in memory for this session/)
    expect(await secrets.set('anthropic', KEY)).toEqual({ name: 'anthropic', hasKey: true, last4: KEY.slice(-4) })
    expect(await secrets.readForRuntime('anthropic')).toBe(KEY)
    await secrets.delete('anthropic')
    expect(await secrets.has('anthropic')).toBe(false)
  })

  it('says the keychain is locked when it is, with how to unlock it', async () => {
    const secrets = await Secrets.open({ backend: failing('Platform secure storage failure: org.freedesktop.Secret.Error.IsLocked: Collection is locked') })
    expect(secrets.status.reason).toMatch(/keychain is locked.*Unlock it/)
  })

  it('does not hang on a keychain that never answers (an unlock prompt nobody sees)', async () => {
    const never: KeyringBackend = { get: () => new Promise(() => {}), set: () => new Promise(() => {}), delete: () => new Promise(() => {}) }
    const started = Date.now()
    const secrets = await Secrets.open({ backend: never, timeoutMs: 100 })
    expect(Date.now() - started).toBeLessThan(2_000)
    expect(secrets.status).toMatchObject({ persistent: false, reason: expect.stringMatching(/did not answer.*Unlock it/) })
  })

  it('falls back for real when the process has no D-Bus session (no Secret Service to ask)', () => {
    const script = `import { Secrets } from ${JSON.stringify(pathToFileURL(join(import.meta.dirname, '../../../src/core/secrets/index.ts')).href)}
const s = await Secrets.open({ service: 'switchboard-test-nobus' })
await s.set('openai', 'sk-in-memory-only-123456')
console.log(JSON.stringify({ status: s.status, key: await s.info('openai') }))`
    const env = { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' }
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env, encoding: 'utf8' })
    const result = JSON.parse(out.trim().split('\n').pop()!) as { status: { persistent: boolean; reason: string }; key: object }
    expect(result.status.persistent).toBe(false)
    expect(result.status.reason).toMatch(/No system keychain answered|did not answer/)
    expect(result.key).toEqual({ name: 'openai', hasKey: true, last4: '3456' })
  })

  it('falls back to memory when the keychain module itself does not load (a build without its native binary)', async () => {
    const secrets = await Secrets.open({
      service: SERVICE,
      loadKeyring: () => Promise.reject(new Error('Cannot find native binding. npm has a bug related to optional dependencies'))
    })
    expect(secrets.status).toMatchObject({ backend: 'memory', persistent: false })
    expect(secrets.status.reason).toMatch(/could not load its keychain module for this system.*in memory for this session/)
    expect(await secrets.set('openai', KEY)).toEqual({ name: 'openai', hasKey: true, last4: KEY.slice(-4) })
    expect(await secrets.readForRuntime('openai')).toBe(KEY)
  })

  it('a process whose keyring binary is missing starts, keeps keys in memory and says why (the native module is loaded only by Secrets.open)', () => {
    // NAPI_RS_NATIVE_LIBRARY_PATH makes @napi-rs/keyring's own loader look for its binary at a
    // path that does not exist: the exact "Cannot find native binding" a build for another
    // platform meets. Importing the secrets module must not load it; opening must survive it.
    const script = `import { Secrets } from ${JSON.stringify(pathToFileURL(join(import.meta.dirname, '../../../src/core/secrets/index.ts')).href)}
const s = await Secrets.open({ service: 'switchboard-test-nobinary' })
await s.set('openai', 'sk-in-memory-only-123456')
console.log(JSON.stringify({ status: s.status, key: await s.info('openai') }))`
    const env = { ...process.env, NAPI_RS_NATIVE_LIBRARY_PATH: join(import.meta.dirname, 'no-such-keyring.node') }
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env, encoding: 'utf8' })
    const result = JSON.parse(out.trim().split('\n').pop()!) as { status: { persistent: boolean; reason: string }; key: object }
    expect(result.status.persistent).toBe(false)
    expect(result.status.reason).toMatch(/could not load its keychain module/)
    expect(result.key).toEqual({ name: 'openai', hasKey: true, last4: '3456' })
  })

  it('moves to memory when the keychain stops answering mid-session, keeps the key, and reports it', async () => {
    let up = true
    const values = new Map<string, string>()
    const flaky: KeyringBackend = {
      get: async (a) => {
        if (!up) throw new Error('DBus error: connection closed')
        return values.get(a) ?? null
      },
      set: async (a, v) => {
        if (!up) throw new Error(`DBus error: could not store ${v}`)
        values.set(a, v)
      },
      delete: async (a) => values.delete(a)
    }
    const secrets = await Secrets.open({ backend: flaky })
    expect(secrets.status.persistent).toBe(true)
    up = false
    await secrets.set('groq', KEY)
    expect(secrets.status).toMatchObject({ backend: 'memory', persistent: false })
    // The backend's own text (which here echoes the key) never becomes the reason.
    expect(secrets.status.reason).not.toContain(KEY)
    expect(await secrets.readForRuntime('groq')).toBe(KEY)
  })
})
