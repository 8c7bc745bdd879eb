import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { DATABASE_FILE } from '../../../src/core/store/store'
import { contents, openDevice, text, type Device } from './devices'

// DESIGN §8: a process killed in the middle of the longest write sync makes. Adopting a snapshot's
// image is one transaction over a rollback journal (src/core/sync/image.ts); a kill inside it must
// leave the device as it was before, and the next round must adopt the image whole.

const opened: Device[] = []
afterEach(async () => {
  for (const d of opened.splice(0)) await d.close().catch(() => undefined)
})

/** Runs the child on `dataDir` until it kills itself inside the adoption; returns what it printed. */
function adoptAndDie(dataDir: string, folder: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'adopt-crash-child.ts'), dataDir, folder], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
    child.on('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve(out) : reject(new Error(`the child was not killed inside the adoption: ${out} ${err}`))))
  })
}

describe('sync: a process killed while adopting an image', () => {
  it('leaves the device as before the adoption (rolled back at the next open), and the next round adopts the whole image', { timeout: 120_000 }, async () => {
    const folder = mkdtempSync(join(tmpdir(), 'sb-sync-adopt-crash-'))
    const store = { kind: 'folder' as const, path: folder }
    const a = await openDevice('A', { compactBytes: 1, imageChunk: 256 * 1024 })
    opened.push(a)
    const { store: data, chat } = a.core.services()
    const convs = [0, 1, 2, 3].map((i) => data.conversations.create({ agentId: chat.defaultAgent().id, title: `History ${i}` }))
    // Enough that the copied rows outgrow the child's page cache many times over (~2 MB of text).
    data.db.transaction(() => {
      for (let i = 0; i < 4000; i++) data.messages.create({ conversationId: convs[i % 4]!.id, role: i % 2 ? 'assistant' : 'user', content: text(`message ${i}: a wombat and a quokka discuss the weather at length. `.repeat(6)) })
    })
    await a.setup(store)
    await a.sync()
    expect(readdirSync(join(folder, 'snapshots')).some((n) => /\.img\.\d{4}$/.test(n))).toBe(true)

    const dataDir = mkdtempSync(join(tmpdir(), 'sb-sync-B-'))
    const said = await adoptAndDie(dataDir, folder)
    // The kill landed inside the adoption, after the rows were copied, with their pages partly in the file.
    expect(said).toMatch(/^adopting 4000$/m)
    // What the half transaction left: a hot rollback journal (or, were adoption to run in WAL, uncommitted frames).
    const journal = join(dataDir, `${DATABASE_FILE}-journal`)
    const left = [journal, join(dataDir, `${DATABASE_FILE}-wal`)].filter((f) => existsSync(f) && statSync(f).size > 0)
    expect(left.length, 'the kill left a half transaction behind').toBeGreaterThan(0)

    // Opened again (the keychain held in the child is gone, so sync is set up again with the passphrase).
    const b = await openDevice('B', { dataDir })
    opened.push(b)
    const sqlite = b.core.services().store.db.sqlite
    expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok')
    expect(existsSync(journal)).toBe(false)
    expect(sqlite.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(sqlite.pragma('foreign_keys', { simple: true })).toBe(1)
    // Nothing of the image is half there: no rows, no stamps, no search entries; the triggers are all in place.
    expect((sqlite.prepare('SELECT COUNT(*) AS n FROM messages').get() as { n: number }).n).toBe(0)
    expect((sqlite.prepare(`SELECT COUNT(*) AS n FROM sync_meta WHERE tbl = 'messages'`).get() as { n: number }).n).toBe(0)
    expect(b.core.services().store.search.search('wombat')).toEqual([])
    const triggers = (db: typeof sqlite) => (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'messages' ORDER BY name`).all() as Array<{ name: string }>).map((t) => t.name)
    expect(triggers(sqlite)).toEqual(triggers(a.core.services().store.db.sqlite))

    await b.setup(store)
    const status = await b.sync()
    expect(status.error).toBeUndefined()
    expect(contents(b)).toEqual(contents(a))
    const found = (d: Device) => d.core.services().store.search.search('wombat').map((hit) => hit.messageId)
    expect(found(b)).toHaveLength(50)
    expect(found(b)).toEqual(found(a))
    // Writing on from here works: a message typed on B reaches A.
    const reply = b.core.services().store.messages.create({ conversationId: convs[0]!.id, role: 'user', content: text('typed after the crash') })
    await b.sync()
    await a.sync()
    expect(a.core.services().store.messages.get(reply.id)?.id).toBe(reply.id)
  })
})
