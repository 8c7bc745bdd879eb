import { cpSync, existsSync, openSync, readFileSync, closeSync, statSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { databasePath, listBackups, openStore } from '../../../src/core/store'
import { seed, tempDir } from './helpers'

// Issue 13: a SIGKILL in the middle of a checkpoint can leave page 1 of the database file (with
// the new, larger page count) written before the pages after it. The file then looks truncated
// by its header, but the -wal file still holds every frame and SQLite completes the database
// from it on open. Start-up must not take that for damage and "restore" an older backup.
// The state is built with real SQLite: data written with checkpoints off, the files copied as a
// kill would leave them, and page 1 taken from the WAL as the interrupted checkpoint wrote it.

let cleanups: Array<() => void> = []
afterEach(() => {
  for (const c of cleanups.reverse()) c()
  cleanups = []
})
const temp = () => {
  const t = tempDir('sb-wal-frames-')
  cleanups.push(t.cleanup)
  return t.dir
}
const DAY = 24 * 3600 * 1000

/** The newest image of page `page` in a WAL file (frames: 24-byte header + page; header first 32 bytes). */
function newestWalPage(wal: Buffer, page: number): Buffer | undefined {
  const pageSize = wal.readUInt32BE(8)
  let found: Buffer | undefined
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    if (wal.readUInt32BE(at) === page) found = wal.subarray(at + 24, at + 24 + pageSize)
  }
  return found
}

describe('start-up with frames in the WAL', () => {
  it('a database whose header is ahead of its file (a kill mid-checkpoint) keeps its data and is not restored from a backup', () => {
    const dir = temp()
    // Day 1: three messages, closed normally, so a backup that holds data exists.
    const first = openStore({ dataDir: dir, now: () => 1_000 * DAY })
    const { conversation } = seed(first.store, 'Kept')
    for (const text of ['one', 'two', 'three']) first.store.messages.create({ conversationId: conversation.id, role: 'user', content: [{ type: 'text', text }] })
    first.store.close()
    const backupsBefore = listBackups(dir)
    expect(backupsBefore.length).toBeGreaterThan(0)

    // Day 2: many more messages, all still in the WAL (no checkpoint), the database file not grown.
    const second = openStore({ dataDir: dir, dailyBackupMs: 0, now: () => 1_001 * DAY })
    second.store.db.sqlite.pragma('wal_autocheckpoint = 0')
    const text = 'a longer message that fills pages '.repeat(40)
    for (let i = 0; i < 200; i++) second.store.messages.create({ conversationId: conversation.id, role: 'user', content: [{ type: 'text', text: `${i} ${text}` }] })

    // The kill: copy the files as they are now (the process never closes, never checkpoints).
    const crashed = temp()
    const file = databasePath(dir)
    const copy = databasePath(crashed)
    cpSync(file, copy)
    cpSync(`${file}-wal`, `${copy}-wal`)
    if (existsSync(join(dir, 'backups'))) cpSync(join(dir, 'backups'), join(crashed, 'backups'), { recursive: true })
    second.store.close()

    // The checkpoint had written page 1 (the new page count) and nothing after it.
    const wal = readFileSync(`${copy}-wal`)
    const page1 = newestWalPage(wal, 1)
    expect(page1, 'the WAL holds a newer page 1').toBeDefined()
    const fd = openSync(copy, 'r+')
    writeSync(fd, page1!, 0, page1!.length, 0)
    closeSync(fd)
    const header = readFileSync(copy).subarray(0, 100)
    const pageSize = header.readUInt16BE(16)
    const pages = header.readUInt32BE(28)
    // The precondition the fix is about: by its header alone, the file is cut short.
    expect(header.readUInt32BE(92)).toBe(header.readUInt32BE(24))
    expect(statSync(copy).size).toBeLessThan(pages * pageSize)

    const reopened = openStore({ dataDir: crashed, dailyBackupMs: 0, now: () => 1_001 * DAY })
    cleanups.push(() => reopened.store.close())
    expect(reopened.notices.join(' ')).not.toMatch(/restor|truncated|damaged|cut short/i)
    expect(reopened.store.messages.count()).toBe(203)
    expect(existsSync(join(crashed, 'damaged'))).toBe(false)
    expect(listBackups(crashed).map((b) => b.file.replace(crashed, ''))).toEqual(backupsBefore.map((b) => b.file.replace(dir, '')))
  })
})
