import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { syncKeyName } from '../../../src/core/sync/sync-service'
import { contents, openDevice, text, type Device } from './devices'

// A backup restored (Settings → Data) on a device that syncs: the database, its stamps, its
// segment numbers and what it had merged go back to the backup's; the store and the other devices do not.

const opened: Device[] = []
afterEach(async () => {
  for (const d of opened.splice(0)) await d.close().catch(() => undefined)
})

const svc = (d: Device) => d.core.services()
const agentOf = (d: Device) => svc(d).chat.defaultAgent().id

describe('sync: a backup restored on a device that syncs', () => {
  it('what the device writes after the restore reaches the others, and nothing they hold is lost', { timeout: 60_000 }, async () => {
    const folder = mkdtempSync(join(tmpdir(), 'sb-sync-restore-'))
    const store = { kind: 'folder' as const, path: folder }
    const [a, b] = [await openDevice('A', { compactAfter: 3 }), await openDevice('B', { compactAfter: 3 })]
    opened.push(a, b)
    for (const d of [a, b]) await d.setup(store)
    const kept = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'before the backup' })
    await a.sync()
    await b.sync()
    const backup = await a.call('data.backups.create', {}) as { at: number }
    // After the backup: A writes on and syncs several rounds (its older segments are compacted away).
    const after = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'after the backup' })
    for (let i = 0; i < 5; i++) {
      svc(a).store.messages.create({ conversationId: kept.id, role: 'user', content: text(`after the backup ${i}`) })
      await a.sync()
    }
    await b.sync()
    expect(svc(b).store.conversations.get(after.id)?.title).toBe('after the backup')

    const idBefore = svc(a).sync.status().deviceId
    await a.call('data.backups.restore', { at: backup.at })
    expect(svc(a).store.conversations.get(after.id)).toBeUndefined()
    // Written after the restore: it must reach B.
    const fresh = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'written after the restore' })
    for (let i = 0; i < 2; i++) for (const d of [a, b]) await d.sync()
    expect(svc(b).store.conversations.get(fresh.id)?.title).toBe('written after the restore')
    // Nothing B holds was lost, and the two converge.
    expect(svc(b).store.conversations.get(after.id)?.title).toBe('after the backup')
    expect(contents(a)).toEqual(contents(b))
    // It went on as a new device: the numbers the others had read are not written again.
    expect(svc(a).sync.status().deviceId).not.toBe(idBefore)
    expect(svc(a).sync.status().state).toBe('idle')
  })

  it('one segment written after the backup: the device goes on as itself and gets back what that segment held', { timeout: 60_000 }, async () => {
    const folder = mkdtempSync(join(tmpdir(), 'sb-sync-restore-'))
    const store = { kind: 'folder' as const, path: folder }
    const [a, b] = [await openDevice('A'), await openDevice('B')]
    opened.push(a, b)
    for (const d of [a, b]) await d.setup(store)
    svc(a).store.conversations.create({ agentId: agentOf(a), title: 'before the backup' })
    await a.sync()
    const backup = (await a.call('data.backups.create', {})) as { at: number }
    const after = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'in the one segment after the backup' })
    await a.sync()
    const idBefore = svc(a).sync.status().deviceId
    await a.call('data.backups.restore', { at: backup.at })
    expect(svc(a).store.conversations.get(after.id)).toBeUndefined()
    await a.sync()
    expect(svc(a).sync.status().deviceId).toBe(idBefore)
    expect(svc(a).store.conversations.get(after.id)?.title).toBe('in the one segment after the backup')
    const next = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'after the restore' })
    await a.sync()
    await b.sync()
    expect(svc(b).store.conversations.get(next.id)?.title).toBe('after the restore')
    expect(contents(a)).toEqual(contents(b))
  })

  it('a backup from before sync was set up: sync is off after the restore, the store and the other device keep everything', { timeout: 60_000 }, async () => {
    const folder = mkdtempSync(join(tmpdir(), 'sb-sync-restore-'))
    const store = { kind: 'folder' as const, path: folder }
    const [a, b] = [await openDevice('A'), await openDevice('B')]
    opened.push(a, b)
    const backup = (await a.call('data.backups.create', {})) as { at: number }
    for (const d of [a, b]) await d.setup(store)
    const shared = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'synced' })
    await a.sync()
    await b.sync()
    await a.call('data.backups.restore', { at: backup.at })
    expect(svc(a).sync.status().state).toBe('off')
    await expect(a.call('sync.now', {})).rejects.toMatchObject({ errorType: 'SyncNotSetUp' })
    await b.sync()
    expect(svc(b).store.conversations.get(shared.id)?.title).toBe('synced')
    // Set up again, it gets the history back and sends what it holds.
    await a.setup(store)
    await a.sync()
    expect(svc(a).store.conversations.get(shared.id)?.title).toBe('synced')
  })

  it('a sync round that does not end in time: the restore is refused and nothing changes; sync goes on, and a restore works once the round has ended', { timeout: 60_000 }, async () => {
    const folder = mkdtempSync(join(tmpdir(), 'sb-sync-restore-'))
    const store = { kind: 'folder' as const, path: folder }
    const a = await openDevice('A', { timings: { restoreWaitMs: 300 } })
    opened.push(a)
    await a.setup(store)
    const backup = (await a.call('data.backups.create', {})) as { at: number }
    const kept = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'after the backup' })
    let answer = () => undefined as void
    a.fault.hang = new Promise<void>((resolve) => (answer = resolve))
    const round = a.sync()
    await expect.poll(() => svc(a).sync.status().state).toBe('syncing')
    await expect(a.call('data.backups.restore', { at: backup.at })).rejects.toMatchObject({ errorType: 'ImportBusy', message: expect.stringMatching(/sync/i) })
    expect(svc(a).store.conversations.get(kept.id)?.title).toBe('after the backup')
    a.fault.hang = undefined
    answer()
    await round
    expect((await a.sync()).error).toBeUndefined()
    await a.call('data.backups.restore', { at: backup.at })
    expect(svc(a).store.conversations.get(kept.id)).toBeUndefined()
    expect((await a.sync()).error).toBeUndefined()
  })

  /**
   * Device A syncs through a folder, is backed up, writes on and syncs again; then its store stops
   * answering and the backup is restored, so the resume after the restore waits on its check of
   * the store. `answer()` lets the store answer again; `openedBefore`: stores A had opened before
   * the restore.
   */
  async function restoredWhileStoreHangs() {
    const folder = mkdtempSync(join(tmpdir(), 'sb-sync-restore-'))
    const a = await openDevice('A')
    opened.push(a)
    await a.setup({ kind: 'folder', path: folder })
    await a.sync()
    const backup = (await a.call('data.backups.create', {})) as { at: number }
    svc(a).store.conversations.create({ agentId: agentOf(a), title: 'after the backup' })
    await a.sync()
    let release = () => undefined as void
    a.fault.hang = new Promise<void>((resolve) => (release = resolve))
    const openedBefore = a.fault.opened!
    await a.call('data.backups.restore', { at: backup.at })
    const answer = () => {
      a.fault.hang = undefined
      release()
    }
    return { a, folder, openedBefore, answer }
  }

  it('Disconnect while sync is still reaching the store after a restore: sync stays off, and nothing is sent', { timeout: 60_000 }, async () => {
    const { a, folder, answer } = await restoredWhileStoreHangs()
    const id = svc(a).sync.status().deviceId!
    const off = (await a.call('sync.disconnect', {})) as { state: string }
    expect(off.state).toBe('off')
    const segments = () => readdirSync(join(folder, 'segments', id)).sort()
    const before = segments()
    answer()
    svc(a).store.conversations.create({ agentId: agentOf(a), title: 'written after Disconnect' })
    await new Promise((resolve) => setTimeout(resolve, 500))
    // The resume that was under way does not bring sync back, nor send anything, nor put keys back.
    expect(svc(a).sync.status()).toMatchObject({ state: 'off' })
    await expect(a.call('sync.now', {})).rejects.toMatchObject({ errorType: 'SyncNotSetUp' })
    expect(segments()).toEqual(before)
    expect(readdirSync(join(folder, 'segments'))).toEqual([id])
    expect(await a.keychain.get(`key:${syncKeyName(id)}`)).toBeNull()
  })

  it('set up with another store while sync is still reaching the old one after a restore: only the new store is used', { timeout: 60_000 }, async () => {
    const { a, folder: oldFolder, openedBefore, answer } = await restoredWhileStoreHangs()
    const newFolder = mkdtempSync(join(tmpdir(), 'sb-sync-restore-'))
    const listed = () => readdirSync(join(oldFolder, 'segments'), { recursive: true }).map(String).sort()
    // The resume has opened the old store and waits on it; the set-up's own store answers.
    await expect.poll(() => a.fault.opened).toBe(openedBefore + 1)
    a.fault.hangOpenedBefore = openedBefore + 2
    const oldBefore = listed()
    await a.setup({ kind: 'folder', path: newFolder })
    answer()
    const made = svc(a).store.conversations.create({ agentId: agentOf(a), title: 'after the new set-up' })
    await a.sync()
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(svc(a).sync.status()).toMatchObject({ state: 'idle', store: { kind: 'folder', path: newFolder } })
    expect(listed()).toEqual(oldBefore)
    const b = await openDevice('B')
    opened.push(b)
    await b.setup({ kind: 'folder', path: newFolder })
    await b.sync()
    expect(svc(b).store.conversations.get(made.id)?.title).toBe('after the new set-up')
  })

  it('paused while sync is still reaching the store after a restore: it stays paused', { timeout: 60_000 }, async () => {
    const { a, answer } = await restoredWhileStoreHangs()
    expect(((await a.call('sync.update', { paused: true })) as { state: string }).state).toBe('paused')
    answer()
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(svc(a).sync.status()).toMatchObject({ state: 'paused' })
    // Still paused for the next start, too.
    const again = await a.reopen()
    opened.push(again)
    await again.core.services().sync.ready()
    expect(again.core.services().sync.status()).toMatchObject({ state: 'paused' })
  })
})
