import { assertStoreKey, type SyncStore } from '../../../src/core/sync/store'

/**
 * A store in memory with the contract of the real ones (tests/integration/sync/store-contract.ts
 * runs against it too): the simulation's devices meet here, and a test reaches into `objects` to
 * damage, drop or delete what it holds. `kind` says folder: the engine treats every store alike.
 */
export class MemoryStore {
  readonly objects = new Map<string, Uint8Array>()

  /** A view of this store for one device: every call goes through `guard` first (a device offline, killed half way). */
  open(guard: (call: string, key: string) => void = () => undefined): SyncStore {
    const objects = this.objects
    const copy = (b: Uint8Array) => new Uint8Array(b)
    return {
      kind: 'folder',
      async test() {
        guard('test', '')
      },
      async put(key, body) {
        assertStoreKey(key)
        guard('put', key)
        objects.set(key, copy(body))
      },
      async create(key, body) {
        assertStoreKey(key)
        guard('create', key)
        if (objects.has(key)) return false
        objects.set(key, copy(body))
        return true
      },
      async get(key) {
        assertStoreKey(key)
        guard('get', key)
        const body = objects.get(key)
        return body && copy(body)
      },
      async list(prefix) {
        if (prefix !== '') assertStoreKey(prefix)
        guard('list', prefix)
        return [...objects]
          .filter(([key]) => key.startsWith(prefix))
          .map(([key, body]) => ({ key, size: body.byteLength }))
          .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      },
      async delete(key) {
        assertStoreKey(key)
        guard('delete', key)
        objects.delete(key)
      },
      async close() {}
    }
  }
}
