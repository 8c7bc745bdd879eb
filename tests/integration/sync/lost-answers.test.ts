import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { SyncStoreError, type SyncStore } from '../../../src/core/sync/store'
import { converge, openDevice, type Device } from './devices'
import { MemoryStore } from './memory-store'

// Faults the sync simulation (sync-sim.test.ts) found, each alone: a store call whose answer is
// lost, and what the store does with the object meanwhile.

const opened: Device[] = []
afterEach(async () => {
  for (const d of opened.splice(0)) await d.close().catch(() => undefined)
})

const svc = (d: Device) => d.core.services()

/** Devices on one store in memory; `lose.next` makes a device's next segment put store its body and then fail. */
async function devices(names: string[]) {
  const store = new MemoryStore()
  const folder = { kind: 'folder' as const, path: mkdtempSync(join(tmpdir(), 'sb-sync-lost-')) }
  const lose = new Map<string, boolean>()
  const list: Device[] = []
  for (const name of names) {
    const view = (): SyncStore => {
      const v = store.open()
      const put = v.put.bind(v)
      v.put = async (key, body) => {
        await put(key, body)
        if (key.startsWith('segments/') && lose.get(name)) {
          lose.set(name, false)
          throw new SyncStoreError('SyncStoreUnreachable', 'answer lost')
        }
      }
      return v
    }
    const d = await openDevice(name, { store: view })
    opened.push(d)
    await d.setup(folder)
    list.push(d)
  }
  return { store, lose, list }
}

describe('sync with lost answers', () => {
  it('a segment stored with its answer lost, read by another device and then lost by the store: its number is not written again (seed 189)', async () => {
    const { store, lose, list } = await devices(['A', 'B'])
    const [a, b] = list as [Device, Device]
    await converge(list)
    const conv = svc(a).store.conversations.create({ agentId: svc(a).chat.defaultAgent().id, title: 'first' })
    lose.set('A', true)
    await a.sync().catch(() => undefined)
    // B reads the segment A does not know it wrote; then the store loses it.
    await b.sync()
    expect(svc(b).store.conversations.get(conv.id)?.title).toBe('first')
    const written = [...store.objects.keys()].filter((k) => k.startsWith(`segments/${svc(a).sync.status().deviceId}/`)).pop()!
    store.objects.delete(written)
    svc(a).store.conversations.update(conv.id, { title: 'second' })
    await converge(list)
    expect(svc(b).store.conversations.get(conv.id)?.title).toBe('second')
  })
})
