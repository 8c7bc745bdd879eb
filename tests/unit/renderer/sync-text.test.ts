import i18next from 'i18next'
import { beforeAll, describe, expect, it } from 'vitest'
import { en } from '../../../src/renderer/i18n/locales/en'
import { zhCN } from '../../../src/renderer/i18n/locales/zh-CN'
import { mergedNewData, mergePhrases, passphraseStrength, relativeTime, retryInSeconds, statusPhrase, statusTone, transferPercent, type Phrase } from '../../../src/renderer/features/sync/sync-status-text'
import { draftFromStore, emptyDraft, storeAddress, validatePassphrase, validateStore, type StoreDraft } from '../../../src/renderer/features/sync/sync-fields'

// Settings → Sync and the sidebar's sync status, worded by the real locale files.
const i18n = i18next.createInstance()
beforeAll(async () => {
  await i18n.init({ resources: { en: { translation: en }, 'zh-CN': { translation: zhCN } }, lng: 'en', fallbackLng: 'en', interpolation: { escapeValue: false } })
})
const say = (p: Phrase | undefined, lng = 'en') => (p ? i18n.t(p.key, { ...p.values, lng }) : undefined)

const NOW = 1_800_000_000_000
const base = { pendingChanges: 0 }

describe('the sidebar status', () => {
  it('says nothing while sync is off, and each state in a few words', () => {
    expect(statusPhrase({ ...base, state: 'off' }, NOW)).toBeUndefined()
    expect(say(statusPhrase({ ...base, state: 'idle' }, NOW))).toBe('Synced')
    expect(say(statusPhrase({ ...base, state: 'paused' }, NOW))).toBe('Paused')
    expect(say(statusPhrase({ ...base, state: 'error' }, NOW))).toBe('Sync error')
    expect(say(statusPhrase({ ...base, state: 'locked' }, NOW))).toBe('Passphrase needed')
  })

  it('synced, but with objects of the store refused (tampered): a warning, not "Synced"', () => {
    const refused = { ...base, state: 'idle' as const, error: { code: 'SyncTampered', message: 'Refused, not merged: segments/x/1.seg.' } }
    expect(say(statusPhrase(refused, NOW))).toBe('Synced, some changes refused')
    expect(say(statusPhrase(refused, NOW), 'zh-CN')).toBe('已同步，部分更改被拒绝')
    expect(statusTone(refused)).toBe('waiting')
    expect(statusTone({ ...base, state: 'idle' })).toBe('ok')
  })

  it('counts the changes being synced, in the plural where it is one', () => {
    expect(say(statusPhrase({ ...base, state: 'syncing', syncingChanges: 12 }, NOW))).toBe('Syncing 12 changes')
    expect(say(statusPhrase({ ...base, state: 'syncing', syncingChanges: 1 }, NOW))).toBe('Syncing 1 change')
    // Without a count of its own, the pending changes are what is being sent.
    expect(say(statusPhrase({ pendingChanges: 3, state: 'syncing' }, NOW))).toBe('Syncing 3 changes')
    expect(say(statusPhrase({ ...base, state: 'syncing' }, NOW))).toBe('Syncing…')
    expect(say(statusPhrase({ ...base, state: 'syncing', syncingChanges: 12 }, NOW), 'zh-CN')).toBe('正在同步 12 项更改')
  })

  it('a long download (a new device fetching the history) says how far it has come, in MB', () => {
    const syncing = { ...base, state: 'syncing' as const, syncingChanges: 100_000 }
    expect(say(statusPhrase({ ...syncing, transfer: { done: 45_300_000, total: 118_100_000 } }, NOW))).toBe('Syncing the history: 45 of 118 MB')
    // Small ones keep a decimal, so the first chunks are seen to move.
    expect(say(statusPhrase({ ...syncing, transfer: { done: 400_000, total: 2_500_000 } }, NOW))).toBe('Syncing the history: 0.4 of 2.5 MB')
    expect(say(statusPhrase({ ...syncing, transfer: { done: 45_300_000, total: 118_100_000 } }, NOW), 'zh-CN')).toBe('正在同步历史记录：45 / 118 MB')
    // Never the whole before it is: the part done rounds down, and stays a unit short until it is all there.
    expect(say(statusPhrase({ ...syncing, transfer: { done: 117_600_000, total: 118_100_000 } }, NOW))).toBe('Syncing the history: 117 of 118 MB')
    expect(say(statusPhrase({ ...syncing, transfer: { done: 118_090_000, total: 118_100_000 } }, NOW))).toBe('Syncing the history: 117 of 118 MB')
    expect(say(statusPhrase({ ...syncing, transfer: { done: 2_480_000, total: 2_500_000 } }, NOW))).toBe('Syncing the history: 2.4 of 2.5 MB')
    // Done downloading, the count again (the copy into the database follows).
    expect(say(statusPhrase({ ...syncing, transfer: { done: 118_100_000, total: 118_100_000 } }, NOW))).toBe('Syncing 100,000 changes')
  })

  it("the download's bar is not full before the download is", () => {
    expect(transferPercent({ done: 45_300_000, total: 118_100_000 })).toBe(38.3)
    expect(transferPercent({ done: 117_600_000, total: 118_100_000 })).toBe(99.5)
    expect(transferPercent({ done: 118_090_000, total: 118_100_000 })).toBeLessThan(100)
    expect(transferPercent({ done: 118_100_000, total: 118_100_000 })).toBe(100)
  })

  it('is not "Synced" while local changes wait for the next round', () => {
    expect(say(statusPhrase({ pendingChanges: 2, state: 'idle' }, NOW))).toBe('2 changes to send')
  })

  it('offline: counts down to the next retry in whole seconds', () => {
    expect(say(statusPhrase({ ...base, state: 'offline', nextRetryAt: NOW + 30_000 }, NOW))).toBe('Offline, will retry in 30 s')
    expect(say(statusPhrase({ ...base, state: 'offline', nextRetryAt: NOW + 29_001 }, NOW))).toBe('Offline, will retry in 30 s')
    expect(say(statusPhrase({ ...base, state: 'offline', nextRetryAt: NOW + 30_000 }, NOW), 'zh-CN')).toBe('离线，30 秒后重试')
    // Due now, or not known: no number that would be 0 or negative.
    expect(say(statusPhrase({ ...base, state: 'offline', nextRetryAt: NOW - 1 }, NOW))).toBe('Offline, will retry')
    expect(say(statusPhrase({ ...base, state: 'offline' }, NOW))).toBe('Offline, will retry')
    expect(retryInSeconds(NOW + 1, NOW)).toBe(1)
  })
})

describe('relative times (devices last seen, last synced)', () => {
  it('from just now to days, with plurals, in both languages', () => {
    expect(say(relativeTime(NOW - 5_000, NOW))).toBe('just now')
    expect(say(relativeTime(NOW + 60_000, NOW))).toBe('just now') // another device's clock ahead of ours
    expect(say(relativeTime(NOW - 60_000, NOW))).toBe('1 minute ago')
    expect(say(relativeTime(NOW - 5 * 60_000 - 59_000, NOW))).toBe('5 minutes ago')
    expect(say(relativeTime(NOW - 3_600_000, NOW))).toBe('1 hour ago')
    expect(say(relativeTime(NOW - 23 * 3_600_000, NOW))).toBe('23 hours ago')
    expect(say(relativeTime(NOW - 2 * 86_400_000, NOW))).toBe('2 days ago')
    expect(say(relativeTime(NOW - 5 * 60_000, NOW), 'zh-CN')).toBe('5 分钟前')
    expect(say(relativeTime(NOW, NOW), 'zh-CN')).toBe('刚刚')
  })
})

describe('the last merge', () => {
  it('reads as changes merged and edits kept, never as something lost', () => {
    const text = mergePhrases({ applied: 3, conflicts: 1, recovered: 0 }).map((p) => say(p)).join(', ')
    expect(text).toBe('3 changes merged, 1 edit kept from the later device, 0 recovered')
    expect(text).not.toMatch(/lost|discard|overwr|delet/i)
    expect(mergePhrases({ applied: 1, conflicts: 2, recovered: 1 }).map((p) => say(p)).join(', ')).toBe('1 change merged, 2 edits kept from the later device, 1 recovered')
    expect(mergePhrases({ applied: 3, conflicts: 1, recovered: 0 }).map((p) => say(p, 'zh-CN')).join('，')).toBe('合并了 3 项更改，1 处修改采用了较晚设备的版本，恢复了 0 项')
  })
})

describe('reading stored data again after a sync round', () => {
  it('only when a round finished that merged changes from other devices', () => {
    const merged = { lastSyncedAt: NOW, lastMerge: { applied: 2, conflicts: 0, recovered: 0, at: NOW } }
    expect(mergedNewData({ lastSyncedAt: NOW - 30_000 }, merged)).toBe(true)
    // The same round seen again (a status event for another reason), or the window's first status.
    expect(mergedNewData(merged, { ...merged })).toBe(false)
    expect(mergedNewData(undefined, merged)).toBe(false)
    // A round that brought nothing.
    expect(mergedNewData({ lastSyncedAt: NOW - 30_000 }, { lastSyncedAt: NOW, lastMerge: { applied: 0, conflicts: 0, recovered: 0, at: NOW } })).toBe(false)
    expect(mergedNewData({ lastSyncedAt: NOW - 30_000 }, { lastSyncedAt: NOW })).toBe(false)
    // Later rounds that merged nothing: the status still shows the last merge, which was read already.
    expect(mergedNewData(merged, { ...merged, lastSyncedAt: NOW + 15_000 })).toBe(false)
    // A later round that merged something again.
    expect(mergedNewData(merged, { lastSyncedAt: NOW + 15_000, lastMerge: { applied: 1, conflicts: 0, recovered: 0, at: NOW + 15_000 } })).toBe(true)
  })
})

describe('the passphrase', () => {
  it('needs 8 characters, and the same twice when setting up (not when joining)', () => {
    expect(validatePassphrase('short', 'short', 'setup')).toBe('sync.invalid.passphraseShort')
    expect(validatePassphrase('long enough', 'long enough!', 'setup')).toBe('sync.invalid.passphraseMismatch')
    expect(validatePassphrase('long enough', 'long enough', 'setup')).toBeUndefined()
    expect(validatePassphrase('long enough', '', 'join')).toBeUndefined()
    expect(validatePassphrase('1234567', '', 'join')).toBe('sync.invalid.passphraseShort')
  })

  it('has a strength hint that rewards length and variety', () => {
    expect(passphraseStrength('abc')).toBe('tooShort')
    expect(passphraseStrength('password')).toBe('weak')
    expect(passphraseStrength('Passw0rd!')).toBe('fair')
    expect(passphraseStrength('correct horse battery')).toBe('strong')
    expect(passphraseStrength('Tr0ub4dor&3xyzw')).toBe('strong')
  })
})

describe('the store fields, checked before anything is sent', () => {
  const draft = (kind: StoreDraft['kind'], patch: Partial<StoreDraft>): StoreDraft => ({ ...emptyDraft(kind), ...patch })

  it('a folder needs a full path', () => {
    expect(validateStore(draft('folder', {}), '', false)).toEqual({ errors: { path: 'sync.invalid.required' } })
    expect(validateStore(draft('folder', { path: 'Dropbox/sync' }), '', false)).toEqual({ errors: { path: 'sync.invalid.absolutePath' } })
    expect(validateStore(draft('folder', { path: '  /home/me/Dropbox/Switchboard ' }), '', false)).toEqual({ store: { kind: 'folder', path: '/home/me/Dropbox/Switchboard' } })
    expect(validateStore(draft('folder', { path: 'C:\\Users\\me\\Dropbox' }), '', false)).toEqual({ store: { kind: 'folder', path: 'C:\\Users\\me\\Dropbox' } })
  })

  it('S3: bucket, key id and secret are required; the endpoint is a full address; empty optional fields are left out', () => {
    const r = validateStore(draft('s3', { endpoint: 'r2.cloudflarestorage.com', bucket: 'My Bucket' }), '', false)
    expect(r).toEqual({ errors: { endpoint: 'sync.invalid.url', bucket: 'sync.invalid.bucket', accessKeyId: 'sync.invalid.required', secret: 'sync.invalid.secret' } })
    expect(validateStore(draft('s3', { bucket: 'sync-bucket', accessKeyId: 'AKIA1' }), 'shh', false)).toEqual({ store: { kind: 's3', region: 'us-east-1', bucket: 'sync-bucket', accessKeyId: 'AKIA1' } })
    // MinIO: an endpoint and path-style addresses.
    expect(validateStore(draft('s3', { endpoint: 'http://127.0.0.1:9000', bucket: 'sync', accessKeyId: 'minio', forcePathStyle: true, prefix: 'sb/' }), 'minio123', false)).toEqual({
      store: { kind: 's3', endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', bucket: 'sync', prefix: 'sb/', accessKeyId: 'minio', forcePathStyle: true }
    })
    // The secret saved for this store is kept when the field is left empty.
    expect(validateStore(draft('s3', { bucket: 'sync-bucket', accessKeyId: 'AKIA1' }), '', true)).toHaveProperty('store')
  })

  it('WebDAV: an http(s) address', () => {
    expect(validateStore(draft('webdav', { url: 'ftp://cloud.example.com/dav' }), '', false)).toEqual({ errors: { url: 'sync.invalid.url' } })
    expect(validateStore(draft('webdav', { url: 'https://cloud.example.com/remote.php/dav/files/me/Switchboard', username: 'me' }), 'pw', false)).toEqual({
      store: { kind: 'webdav', url: 'https://cloud.example.com/remote.php/dav/files/me/Switchboard', username: 'me' }
    })
  })

  it('PostgreSQL: a host without scheme, a port in range, an identifier for the schema', () => {
    const r = validateStore(draft('postgres', { host: 'postgres://db.example.supabase.co', port: '70000', database: '', user: 'postgres', schema: '1bad' }), '', false)
    expect(r).toEqual({ errors: { host: 'sync.invalid.host', port: 'sync.invalid.port', database: 'sync.invalid.required', schema: 'sync.invalid.schema' } })
    expect(validateStore(draft('postgres', { host: 'db.abc.supabase.co', database: 'postgres', user: 'postgres' }), 'pw', false)).toEqual({
      store: { kind: 'postgres', host: 'db.abc.supabase.co', port: 5432, database: 'postgres', user: 'postgres', ssl: true }
    })
  })

  it('a store set up comes back into the form and its one-line address', () => {
    const store = { kind: 's3', endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', bucket: 'sync', prefix: 'sb', accessKeyId: 'minio', forcePathStyle: true } as const
    expect(validateStore(draftFromStore(store), '', true)).toEqual({ store })
    expect(storeAddress(store)).toBe('http://127.0.0.1:9000 · sync/sb')
    expect(storeAddress({ kind: 'postgres', host: 'localhost', port: 5433, database: 'sb', user: 'me' })).toBe('me@localhost:5433/sb')
  })
})
