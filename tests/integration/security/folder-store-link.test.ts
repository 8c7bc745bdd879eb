/**
 * A folder store is a folder other people and programs can write (a share, a Dropbox folder). One
 * of them plants a link where sync keeps its objects — a device's segment folder, the blobs
 * folder, one object — pointing at a folder of the user's. Two real devices sync through the
 * folder; the attacker does nothing but make links. Whatever the link points at is left as it
 * was: nothing deleted there, nothing written there, and the round names what it refused. Each
 * case has a control: the same steps with a plain folder in place of the link do delete and write,
 * so the route the link would take is real.
 */
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { SyncStatus } from '../../../src/shared/bridge/procedures/sync'
import { openFolderStore } from '../../../src/core/sync/stores/folder'
import { newFolderStore, openDevice, type Device } from '../sync/devices'

const opened: Device[] = []
afterEach(async () => {
  for (const d of opened.splice(0)) await d.close().catch(() => undefined)
})

const USER_FILE = 'thesis-final.docx'
const USER_BYTES = 'the only copy of my thesis'

/** A folder of the user's, outside the store, holding a file only the user may change. */
function victimFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sb-victim-'))
  writeFileSync(join(dir, USER_FILE), USER_BYTES)
  return dir
}

const status = (d: Device) => d.call('sync.status', {}) as Promise<SyncStatus>
const deviceIdOf = async (d: Device) => (await status(d)).deviceId

/** A round's outcome as the user sees it: the status after it (a failed round names its error there too). */
async function roundSays(d: Device): Promise<string> {
  const after = await d.sync().catch(() => status(d))
  return `${after.error?.message ?? ''} ${after.error?.fix ?? ''}`
}

async function twoDevices() {
  const store = newFolderStore()
  const a = await openDevice('A', { compactAfter: 1_000 })
  const b = await openDevice('B', { compactAfter: 1_000 })
  opened.push(a, b)
  await a.setup(store)
  await b.setup(store)
  const agent = a.core.services().chat.defaultAgent().id
  for (let i = 0; i < 3; i++) {
    a.core.services().store.conversations.create({ agentId: agent, title: `from A ${i}` })
    await a.sync()
  }
  await b.sync()
  return { root: store.path, a, b, agent, aId: await deviceIdOf(a), bId: await deviceIdOf(b) }
}

describe('a link planted in a folder store is never followed', () => {
  it("a device's segment folder replaced by a link: the user's file there stays, nothing is written through it, the round names it", { timeout: 60_000 }, async () => {
    const { root, a, agent, aId } = await twoDevices()
    const victim = victimFolder()
    // The attacker moves the device's folder away and leaves a link to the user's folder in its place.
    renameSync(join(root, 'segments', aId), join(tmpdir(), `sb-moved-${aId}-${Date.now()}`))
    symlinkSync(victim, join(root, 'segments', aId), 'dir')

    a.core.services().store.conversations.create({ agentId: agent, title: 'after the link' })
    const said = await roundSays(a)

    expect(readdirSync(victim)).toEqual([USER_FILE])
    expect(readFileSync(join(victim, USER_FILE), 'utf8')).toBe(USER_BYTES)
    expect(said).toContain(`segments/${aId}`)
    expect(said).toMatch(/link/i)
    // The device keeps running and keeps the change for when the link is gone.
    rmSync(join(root, 'segments', aId))
    await a.sync()
    expect((await status(a)).pendingChanges).toBe(0)
    expect(readdirSync(join(root, 'segments', aId)).length).toBeGreaterThan(0)
  })

  it('control: the same steps with a plain folder in its place do delete there and write there', { timeout: 60_000 }, async () => {
    const { root, a, agent, aId } = await twoDevices()
    renameSync(join(root, 'segments', aId), join(tmpdir(), `sb-moved-${aId}-${Date.now()}`))
    mkdirSync(join(root, 'segments', aId))
    writeFileSync(join(root, 'segments', aId, USER_FILE), USER_BYTES)

    a.core.services().store.conversations.create({ agentId: agent, title: 'after the swap' })
    await a.sync()

    const left = readdirSync(join(root, 'segments', aId))
    expect(left).not.toContain(USER_FILE)
    expect(left.some((name) => name.endsWith('.seg'))).toBe(true)
  })

  it('the blobs folder and the device records folder replaced by links: nothing is written through them', { timeout: 60_000 }, async () => {
    const { root, a, agent } = await twoDevices()
    const victim = victimFolder()
    rmSync(join(root, 'devices'), { recursive: true })
    symlinkSync(victim, join(root, 'devices'), 'dir')
    rmSync(join(root, 'blobs'), { recursive: true, force: true })
    symlinkSync(victim, join(root, 'blobs'), 'dir')

    const services = a.core.services()
    services.store.conversations.create({ agentId: agent, title: 'with a file' })
    await services.attachments.upload({ name: 'notes.txt', mimeType: 'text/plain', bytes: Buffer.from('some notes') })
    const said = await roundSays(a)

    expect(readdirSync(victim)).toEqual([USER_FILE])
    expect(readFileSync(join(victim, USER_FILE), 'utf8')).toBe(USER_BYTES)
    expect(said).toMatch(/link/i)
  })

  it("one object replaced by a link to the user's file: not read through, not deleted through, named; a write replaces the link", { timeout: 60_000 }, async () => {
    const { root, aId } = await twoDevices()
    const victim = victimFolder()
    const segment = readdirSync(join(root, 'segments', aId)).find((name) => name.endsWith('.seg'))!
    const key = `segments/${aId}/${segment}`
    rmSync(join(root, 'segments', aId, segment))
    symlinkSync(join(victim, USER_FILE), join(root, 'segments', aId, segment))
    const store = await openFolderStore({ path: root })

    await expect(store.get(key)).rejects.toThrow(/link/i)
    await store.delete(key)
    expect(lstatSync(join(root, 'segments', aId, segment)).isSymbolicLink()).toBe(true)
    expect(store.takeRefused?.()).toEqual([key])
    // A device reading it refuses it by name and syncs on.
    const fresh = await openDevice('C')
    opened.push(fresh)
    await fresh.setup({ kind: 'folder', path: root })
    expect(await roundSays(fresh)).toContain(key)
    // A write under that name replaces the link, never the file it points at.
    await store.put(key, new Uint8Array([1, 2, 3]))
    expect(lstatSync(join(root, 'segments', aId, segment)).isFile()).toBe(true)
    expect(readFileSync(join(victim, USER_FILE), 'utf8')).toBe(USER_BYTES)
  })

  it('the key file replaced by a link: a device set up there does not read the file it points at', { timeout: 60_000 }, async () => {
    const { root } = await twoDevices()
    const victim = victimFolder()
    rmSync(join(root, 'meta', 'keys.json'))
    symlinkSync(join(victim, USER_FILE), join(root, 'meta', 'keys.json'))
    const store = await openFolderStore({ path: root })
    await expect(store.get('meta/keys.json')).rejects.toThrow(/link/i)
    await expect(store.create('meta/keys.json', new Uint8Array([1]))).resolves.toBe(false)
    expect(readFileSync(join(victim, USER_FILE), 'utf8')).toBe(USER_BYTES)
  })
})
