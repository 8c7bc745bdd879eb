import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, writeFileSync, openSync, writeSync, closeSync, statSync } from 'node:fs'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { listBackups, openStore, databasePath, BACKUPS_KEPT } from '../../../src/core/store'
import { StoreDb } from '../../../src/core/store/database'
import { Store } from '../../../src/core/store/store'
import { LATEST_SCHEMA_VERSION, migrations } from '../../../src/core/store/migrations'
import type { Migration } from '../../../src/core/store/migrations/migration'
import { AppErrorException } from '../../../src/shared/errors/app-error'
import { seed, tempDir } from './helpers'

let cleanups: Array<() => void> = []
afterEach(() => {
  for (const c of cleanups.reverse()) c()
  cleanups = []
})
const temp = () => {
  const t = tempDir()
  cleanups.push(t.cleanup)
  return t.dir
}
const open = (dir: string, extra: Parameters<typeof openStore>[0] extends infer O ? Partial<O> : never = {}) => {
  const opened = openStore({ dataDir: dir, dailyBackupMs: 0, ...extra })
  cleanups.push(() => opened.store.close())
  return opened
}
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex')
const thrown = (fn: () => unknown): AppErrorException => {
  try {
    fn()
  } catch (error) {
    return error as AppErrorException
  }
  throw new Error('expected a throw')
}

/** Extra numbered steps on top of the real schema, to exercise backups across several migrations. */
const extraSteps = (count: number): Migration[] =>
  Array.from({ length: count }, (_, i) => ({
    version: LATEST_SCHEMA_VERSION + i + 1,
    name: `extra-${i + 1}`,
    up: (db) => void db.exec(`CREATE TABLE extra_${i + 1} (x INTEGER)`)
  }))

describe('opening the database', () => {
  it('uses WAL, synchronous FULL and foreign keys, and is at the newest schema', () => {
    const { store } = open(temp())
    const p = (name: string) => store.db.sqlite.pragma(name, { simple: true })
    expect(p('journal_mode')).toBe('wal')
    expect(p('synchronous')).toBe(2)
    expect(p('foreign_keys')).toBe(1)
    expect(p('user_version')).toBe(LATEST_SCHEMA_VERSION)
    expect(store.integrityCheck()).toEqual(['ok'])
  })

  it('backs up before each migration of an existing database that holds data', () => {
    const dir = temp()
    const first = openStore({ dataDir: dir, dailyBackupMs: 0 })
    seed(first.store, 'Before')
    first.store.close()
    expect(listBackups(dir)).toHaveLength(0)

    const opened = open(dir, { migrations: [...migrations, ...extraSteps(4)] })
    expect(opened.store.db.sqlite.pragma('user_version', { simple: true })).toBe(LATEST_SCHEMA_VERSION + 4)
    const backups = listBackups(dir)
    expect(backups.length).toBeLessThanOrEqual(BACKUPS_KEPT)
    // Newest first: the copies taken before steps 4, 3, 2 and 1 of the extra ones.
    expect(backups.map((b) => b.schemaVersion)).toEqual([LATEST_SCHEMA_VERSION + 3, LATEST_SCHEMA_VERSION + 2, LATEST_SCHEMA_VERSION + 1, LATEST_SCHEMA_VERSION])
    expect(backups.every((b) => b.reason === 'migration')).toBe(true)
    // A backup is a whole, readable database with the data of that moment.
    const copy = new BetterSqlite3(backups[2]!.file, { readonly: true })
    expect(copy.prepare('SELECT name FROM agents').all()).toEqual([{ name: 'Before' }])
    expect(copy.pragma('user_version', { simple: true })).toBe(LATEST_SCHEMA_VERSION + 1)
    copy.close()
  })

  it('makes a daily backup only when the database holds something to keep', () => {
    const dir = temp()
    const day = 24 * 3600 * 1000
    // First start: nothing to keep, so no backup (an empty copy would only crowd out good ones).
    openStore({ dataDir: dir, dailyBackupMs: day, now: () => 1_000 * day }).store.close()
    expect(listBackups(dir)).toEqual([])
    const withData = openStore({ dataDir: dir, dailyBackupMs: day, now: () => 1_000 * day + 1000 })
    seed(withData.store)
    withData.store.close()
    // Quitting after changes keeps a copy of them.
    expect(listBackups(dir).map((b) => b.reason)).toEqual(['quit'])
    openStore({ dataDir: dir, dailyBackupMs: day, now: () => 1_000 * day + 2000 }).store.close()
    expect(listBackups(dir)).toHaveLength(1)
    open(dir, { dailyBackupMs: day, now: () => 1_002 * day })
    expect(listBackups(dir).map((b) => b.reason)).toEqual(['daily', 'quit'])
  })

  it('refuses a database written by a newer version, says to upgrade, and leaves the file byte-for-byte untouched', () => {
    const dir = temp()
    openStore({ dataDir: dir, dailyBackupMs: 0, migrations: [...migrations, ...extraSteps(1)] }).store.close()
    const file = databasePath(dir)
    const before = sha(file)
    const files = readdirSync(dir).sort()
    const backupsBefore = listBackups(dir)
    const error = thrown(() => openStore({ dataDir: dir, dailyBackupMs: 0 }))
    expect(error.error.errorType).toBe('DatabaseNewerThanApp')
    expect(error.message).toMatch(/newer version of Switchboard/)
    expect(error.message).toMatch(/Upgrade Switchboard/)
    expect(error.message).toMatch(/not been changed/)
    expect(sha(file)).toBe(before)
    expect(readdirSync(dir).sort()).toEqual(files)
    expect(listBackups(dir)).toEqual(backupsBefore)
  })

  it('moves a damaged database aside, restores the newest backup and tells the user', () => {
    const dir = temp()
    const first = openStore({ dataDir: dir, dailyBackupMs: 0 })
    seed(first.store, 'Saved before the backup')
    first.store.close()
    // Take a backup the way start-up does, then add data that the backup will not have.
    const second = openStore({ dataDir: dir, dailyBackupMs: 1, now: () => Date.now() + 10 })
    second.store.backups!.stop() // no backup on quit: the test needs a change the backup lacks
    seed(second.store, 'After the backup')
    second.store.close()
    expect(listBackups(dir)).toHaveLength(1)

    corrupt(databasePath(dir))
    const { store, notices } = open(dir)
    expect(notices.join(' ')).toMatch(/damaged.*restored the backup from .* which holds 1 conversation and 0 messages/)
    expect(store.integrityCheck()).toEqual(['ok'])
    expect(store.agents.list().map((a) => a.name)).toEqual(['Saved before the backup'])
    const aside = readdirSync(join(dir, 'damaged'))
    expect(aside.some((f) => f.endsWith('.db'))).toBe(true)
    expect(notices.join(' ')).toContain(join(dir, 'damaged'))
  })

  it('with no usable backup, keeps the damaged file aside and starts empty, saying so', () => {
    const dir = temp()
    const first = openStore({ dataDir: dir, dailyBackupMs: 0 })
    seed(first.store)
    first.store.close()
    writeFileSync(databasePath(dir), Buffer.alloc(8192, 0x41))
    const { store, notices } = open(dir)
    expect(notices.join(' ')).toMatch(/no backup could be used.*empty one.*damaged file is kept/)
    expect(store.agents.list()).toEqual([])
    const asideFile = join(dir, 'damaged', readdirSync(join(dir, 'damaged')).find((f) => f.endsWith('.db'))!)
    expect(readFileSync(asideFile)).toEqual(Buffer.alloc(8192, 0x41))
  })
})

describe('bad conditions give messages that name the fix', () => {
  it('a full disk: the write fails with DiskFull, and what was saved stays', () => {
    const dir = temp()
    const { store } = open(dir)
    const { conversation } = seed(store)
    const kept = store.messages.create({ conversationId: conversation.id, role: 'user', content: [{ type: 'text', text: 'kept' }] })
    // SQLite's own page limit gives a real SQLITE_FULL without filling the machine's disk.
    const pages = store.db.sqlite.pragma('page_count', { simple: true }) as number
    store.db.sqlite.pragma(`max_page_count = ${pages + 2}`)
    // Repositories report it themselves: the chat service gets the same message without wrapping calls.
    const error = thrown(() => {
      for (let i = 0; i < 100; i++) store.messages.create({ conversationId: conversation.id, role: 'user', content: [{ type: 'text', text: 'x'.repeat(10_000) }] })
    })
    expect(error.error.errorType).toBe('DiskFull')
    expect(error.message).toMatch(/disk .* is full.*Free some space/)
    expect(store.messages.require(kept.id).content).toEqual([{ type: 'text', text: 'kept' }])
    // A reply streaming into a full disk: finishing reports it, and the last good flush stays.
    store.db.sqlite.pragma(`max_page_count = ${(store.db.sqlite.pragma('page_count', { simple: true }) as number) + 50}`)
    const writer = store.messages.beginStreaming({ conversationId: conversation.id })
    writer.appendText('saved part')
    writer.flush()
    store.db.sqlite.pragma(`max_page_count = ${store.db.sqlite.pragma('page_count', { simple: true }) as number}`)
    writer.appendText(' ' + 'y'.repeat(200_000))
    // Finishing never throws and never leaves a live-looking reply: the failure is on the message…
    const final = writer.finish('complete')
    expect(final.status).toBe('complete')
    expect(final.error?.errorType).toBe('DiskFull')
    expect(final.error?.message).toMatch(/could not be saved yet.*saves it as soon as writing works again/)
    // …readers get the finished reply from memory, while the row on disk still has the last good flush.
    expect(store.messages.require(writer.id)).toMatchObject({ status: 'complete' })
    const onDisk = () => store.db.sqlite.prepare('SELECT status, text FROM messages WHERE id = ?').get(writer.id) as { status: string; text: string }
    expect(onDisk()).toEqual({ status: 'streaming', text: 'saved part' })
    writer.dispose()
  })

  it('closing the store saves what replies streamed since their last flush, as interrupted', () => {
    const dir = temp()
    const first = openStore({ dataDir: dir, dailyBackupMs: 0 })
    const { conversation } = seed(first.store)
    const writer = first.store.messages.beginStreaming({ conversationId: conversation.id }, { flushIntervalMs: 60_000 })
    writer.appendText('flushed part')
    writer.flush()
    writer.appendText(' and the words streamed after it')
    const done = first.store.messages.beginStreaming({ conversationId: conversation.id })
    done.appendText('finished')
    done.finish('complete')
    first.store.close()
    expect(writer.finished).toBe(true)
    const { store } = open(dir)
    const saved = store.messages.require(writer.id)
    expect(saved.status).toBe('interrupted')
    expect(saved.content).toEqual([{ type: 'text', text: 'flushed part and the words streamed after it' }])
    expect(store.messages.require(done.id).status).toBe('complete')
  })

  it('a final write that failed is retried until writing works again', async () => {
    const { store } = open(temp())
    const { conversation } = seed(store)
    const writer = store.messages.beginStreaming({ conversationId: conversation.id }, { retryFinishMs: 20 })
    writer.appendText('first part')
    writer.flush()
    store.db.sqlite.pragma(`max_page_count = ${store.db.sqlite.pragma('page_count', { simple: true }) as number}`)
    writer.appendText(' and the rest ' + 'z'.repeat(100_000))
    expect(writer.finish('complete').error?.errorType).toBe('DiskFull')
    await new Promise((r) => setTimeout(r, 80))
    expect(writer.saveError?.errorType).toBe('DiskFull')
    // Space is back: the next retry writes the whole reply and the in-memory copy is dropped.
    store.db.sqlite.pragma('max_page_count = 1073741823')
    await vi.waitFor(() => expect(writer.saveError).toBeUndefined())
    const row = store.db.sqlite.prepare('SELECT status, length(text) AS n FROM messages WHERE id = ?').get(writer.id) as { status: string; n: number }
    expect(row).toEqual({ status: 'complete', n: 'first part and the rest '.length + 100_000 })
    expect(store.messages.require(writer.id).error).toBeUndefined()
  })

  it('a read-only database: the write fails with a message about the data folder’s permissions', () => {
    const dir = temp()
    open(dir).store.close()
    const readonly = new Store(new StoreDb(new BetterSqlite3(databasePath(dir), { readonly: true })), dir)
    cleanups.push(() => readonly.close())
    const error = thrown(() => readonly.guard(() => readonly.agents.create({ name: 'x' })))
    expect(error.error.errorType).toBe('DataFolderReadOnly')
    expect(error.message).toMatch(/cannot write to its data folder.*writable/)
  })

  it('a data folder that cannot be written: start-up fails with the reason and the fix', () => {
    const dir = temp()
    // A file where the folder should be: the write probe fails as it would on a read-only folder.
    const blocked = join(dir, 'not-a-folder')
    writeFileSync(blocked, '')
    const error = thrown(() => openStore({ dataDir: join(blocked, 'data') }))
    expect(error).toBeInstanceOf(AppErrorException)
    expect(error.message).toMatch(/could not read or write its data folder|cannot write to its data folder/)
    expect(error.message).toContain(join(blocked, 'data'))
  })
})

/** Overwrites the middle of the file (b-tree pages) with garbage, leaving the header valid. */
function corrupt(file: string) {
  expect(existsSync(file + '-wal')).toBe(false)
  const size = statSync(file).size
  const fd = openSync(file, 'r+')
  const garbage = Buffer.alloc(size - 4096, 0xff)
  writeSync(fd, garbage, 0, garbage.length, 4096)
  closeSync(fd)
}
