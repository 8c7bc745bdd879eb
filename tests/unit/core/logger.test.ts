import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { addLogSecret, closeLogFile, configureLogFile, logged, logger } from '../../../src/core/log/logger'
import { migrateLocalServersFile } from '../../../src/core/local/local-settings'
import { featureSettingsOver } from '../../../src/core/store/repositories/settings'
import { logError } from '../../../src/shared/errors/log'

const fresh = () => mkdtempSync(join(tmpdir(), 'sb-log-'))

afterEach(() => closeLogFile())

describe('core logger', () => {
  it('writes levels at or above the threshold to <dataDir>/logs/switchboard.log', () => {
    const path = configureLogFile(fresh(), { console: false, level: 'info' })!
    logger.debug('t', 'not written')
    logger.info('t', 'an info line')
    logger.error('t', 'an error line', new Error('boom'))
    const text = readFileSync(path, 'utf8')
    expect(text).not.toContain('not written')
    expect(text).toMatch(/^\S+Z INFO \[t\] an info line$/m)
    expect(text).toMatch(/ERROR \[t\] an error line: Error: boom/)
  })

  it('rotates past maxBytes, keeping `keep` old files and dropping the oldest', () => {
    const dir = fresh()
    const path = configureLogFile(dir, { console: false, maxBytes: 200, keep: 2 })!
    for (let i = 0; i < 40; i++) logger.warn('rot', `line ${String(i).padStart(2, '0')} ${'x'.repeat(40)}`)
    expect(existsSync(`${path}.1`)).toBe(true)
    expect(existsSync(`${path}.2`)).toBe(true)
    expect(existsSync(`${path}.3`)).toBe(false)
    for (const file of [path, `${path}.1`, `${path}.2`]) expect(readFileSync(file).length).toBeLessThanOrEqual(200)
    // The newest line is in the live file; the first lines were rotated away.
    expect(readFileSync(path, 'utf8')).toContain('line 39')
    const all = [path, `${path}.1`, `${path}.2`].map((f) => readFileSync(f, 'utf8')).join('')
    expect(all).not.toContain('line 00')
  })

  it('redacts keys (known shapes and registered values) and masks URL hosts, in messages and errors', () => {
    const path = configureLogFile(fresh(), { console: false })!
    addLogSecret('my-plain-secret-value')
    logger.warn('k', 'calling https://api.secret-host.example.com/v1 with sk-abcdefghijklmnop', new Error('Bearer abcdefghijklmnopqrst rejected my-plain-secret-value'))
    const text = readFileSync(path, 'utf8')
    expect(text).not.toContain('sk-abcdefghijklmnop')
    expect(text).not.toContain('abcdefghijklmnopqrst')
    expect(text).not.toContain('my-plain-secret-value')
    expect(text).not.toContain('secret-host.example')
    expect(text).toContain('***')
  })

  it("`logged` turns a swallowed rejection into undefined and a log line; shared code's logError lands in the same file", async () => {
    const path = configureLogFile(fresh(), { console: false })!
    await expect(Promise.reject(new Error('disk probe down')).catch(logged('pull', 'reading the free disk space'))).resolves.toBeUndefined()
    logError('Failed to convert the image x to base64', new Error('bad image'))
    const text = readFileSync(path, 'utf8')
    expect(text).toMatch(/WARN \[pull\] reading the free disk space failed: Error: disk probe down/)
    expect(text).toMatch(/ERROR \[shared\] Failed to convert the image x to base64: Error: bad image/)
  })

  it('a failure that used to vanish is logged: an old local-servers.json that is not JSON (a missing one is not a failure)', () => {
    const dir = fresh()
    const path = configureLogFile(dir, { console: false })!
    writeFileSync(join(dir, 'local-servers.json'), '{ not json')
    const rows: Record<string, unknown> = {}
    migrateLocalServersFile(dir, featureSettingsOver({ get: () => rows, set: (patch) => Object.assign(rows, patch) }))
    migrateLocalServersFile(join(dir, 'missing'), featureSettingsOver({ get: () => rows, set: (patch) => Object.assign(rows, patch) }))
    const text = readFileSync(path, 'utf8')
    expect(text).toMatch(/WARN \[local\] .*local-servers\.json is not JSON; its server addresses are left out: SyntaxError/)
    expect(text).not.toContain('missing')
  })
})
