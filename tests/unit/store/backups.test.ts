import { existsSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { databasePath, listBackups, openStore } from '../../../src/core/store'
import { holdsData, inspectBackup, makeBackup, pruneBackups } from '../../../src/core/store/backup'
import { seed, tempDir } from './helpers'

let cleanups: Array<() => void> = []
afterEach(() => {
  for (const c of cleanups.reverse()) c()
  cleanups = []
})
const temp = () => {
  const t = tempDir('sb-backups-')
  cleanups.push(t.cleanup)
  return t.dir
}
const DAY = 24 * 3600 * 1000

/** A data folder with one conversation of three messages, closed normally (so a quit backup exists). */
function folderWithData(at = 1_000 * DAY) {
  const dir = temp()
  const { store } = openStore({ dataDir: dir, now: () => at })
  const { conversation } = seed(store, 'Kept')
  for (const text of ['one', 'two', 'three']) store.messages.create({ conversationId: conversation.id, role: 'user', content: [{ type: 'text', text }] })
  store.close()
  return dir
}

const emptyTheDatabase = (dir: string) => {
  for (const suffix of ['-wal', '-shm']) rmSync(databasePath(dir) + suffix, { force: true })
  writeFileSync(databasePath(dir), '')
}

describe('an empty or truncated database next to backups is damage, not a new user', () => {
  it('a 0-byte database is restored from the newest backup that holds data, moved aside, and the notice says what came back', () => {
    const dir = folderWithData()
    expect(listBackups(dir).map((b) => b.reason)).toEqual(['quit'])
    emptyTheDatabase(dir)
    const { store, notices } = openStore({ dataDir: dir, now: () => 1_001 * DAY })
    cleanups.push(() => store.close())
    expect(notices.join(' ')).toMatch(/empty \(0 bytes\).*restored the backup from .* which holds 1 conversation and 3 messages/)
    expect(store.conversations.list().map((c) => c.title)).toEqual(['Kept chat'])
    expect(store.messages.count()).toBe(3)
    const aside = readdirSync(join(dir, 'damaged')).filter((f) => f.endsWith('.db'))
    expect(aside).toHaveLength(1)
    expect(statSync(join(dir, 'damaged', aside[0]!)).size).toBe(0)
  })

  it('three daily start-ups never rotate away the last backup that holds data', () => {
    const dir = folderWithData()
    emptyTheDatabase(dir)
    for (let day = 1; day <= 3; day++) {
      const { store } = openStore({ dataDir: dir, now: () => (1_000 + day) * DAY })
      expect(store.messages.count()).toBe(3)
      store.close()
      expect(listBackups(dir).some((b) => holdsData(inspectBackup(b.file)))).toBe(true)
    }
  })

  it('pruning by count and age keeps the newest backup that holds data, even behind many empty ones', () => {
    const dir = folderWithData(1_000 * DAY)
    const withData = listBackups(dir)[0]!
    const empty = openStore({ dataDir: temp(), dailyBackupMs: 0 })
    cleanups.push(() => empty.store.close())
    for (let i = 1; i <= 12; i++) makeBackup(empty.store.db.sqlite, dir, 'daily', 1, (1_000 + 40 + i) * DAY)
    pruneBackups(dir, { now: 1_060 * DAY })
    const kept = listBackups(dir)
    expect(kept.length).toBeLessThanOrEqual(9)
    expect(kept.map((b) => b.file)).toContain(withData.file)
  })

  it('a truncated database is restored too, and says it was cut short', () => {
    const dir = folderWithData()
    const size = statSync(databasePath(dir)).size
    expect(existsSync(databasePath(dir) + '-wal')).toBe(false)
    truncateSync(databasePath(dir), Math.floor(size / 2))
    const { store, notices } = openStore({ dataDir: dir, now: () => 1_001 * DAY })
    cleanups.push(() => store.close())
    expect(notices.join(' ')).toMatch(/cut short \(truncated\).*restored the backup .* 3 messages/)
    expect(store.messages.count()).toBe(3)
  })
})

describe('the first backup is taken when there is something to keep', () => {
  it('no backup at first start; one after the first writes; the notice never calls an empty backup a restore', async () => {
    const dir = temp()
    const { store } = openStore({ dataDir: dir, backupSchedule: { firstAfterWrites: 5 } })
    expect(listBackups(dir)).toEqual([])
    const { conversation } = seed(store)
    for (let i = 0; i < 5; i++) store.messages.create({ conversationId: conversation.id, role: 'user', content: [{ type: 'text', text: `m${i}` }] })
    await new Promise((resolve) => setImmediate(resolve))
    const backups = listBackups(dir)
    expect(backups.map((b) => b.reason)).toEqual(['auto'])
    expect(inspectBackup(backups[0]!.file)?.messages).toBeGreaterThanOrEqual(4)
    store.close()
  })

  it('with only backups made before anything was saved, damage is reported as such, not as a restore', () => {
    const dir = temp()
    const first = openStore({ dataDir: dir, dailyBackupMs: 0 })
    makeBackup(first.store.db.sqlite, dir, 'daily', 1) // as older versions did at first start
    seed(first.store)
    first.store.close()
    writeFileSync(databasePath(dir), Buffer.alloc(8192, 0x41))
    const { store, notices } = openStore({ dataDir: dir, dailyBackupMs: 0 })
    cleanups.push(() => store.close())
    expect(notices.join(' ')).toMatch(/no backup held any of your data.*started with an empty one/)
    expect(notices.join(' ')).not.toMatch(/restored/)
  })
})
