import { describe, expect, it } from 'vitest'
import { SyncStoreError, type SyncStore } from '../../../src/core/sync/store'

/**
 * What every sync store must keep, run against a real one: `open` returns a store on an empty
 * place (a fresh folder, bucket prefix, WebDAV folder, database schema) each time it is called.
 * Reused by each store's test: `describeSyncStoreContract('s3 (s3rver)', () => openS3Store(...))`.
 */
export function describeSyncStoreContract(name: string, open: () => Promise<SyncStore>): void {
  describe(`sync store contract: ${name}`, () => {
    const withStore = async (fn: (store: SyncStore) => Promise<void>) => {
      const store = await open()
      try {
        await fn(store)
      } finally {
        await store.close()
      }
    }
    const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'))
    const textOf = (body: Uint8Array | undefined) => (body ? Buffer.from(body).toString('utf8') : undefined)

    it('test() passes on a reachable, writable store and leaves nothing behind', () =>
      withStore(async (store) => {
        await store.test()
        expect((await store.list('meta/')).filter((o) => !o.key.startsWith('meta/keys'))).toEqual([])
      }))

    it('put then get returns the same bytes; put replaces; get of an absent key is undefined', () =>
      withStore(async (store) => {
        expect(await store.get('segments/dev1/000000000001.seg')).toBeUndefined()
        await store.put('segments/dev1/000000000001.seg', bytes('one'))
        expect(textOf(await store.get('segments/dev1/000000000001.seg'))).toBe('one')
        await store.put('segments/dev1/000000000001.seg', bytes('one, again'))
        expect(textOf(await store.get('segments/dev1/000000000001.seg'))).toBe('one, again')
        const binary = new Uint8Array(256).map((_, i) => i)
        await store.put('blobs/abc', binary)
        expect(Buffer.from((await store.get('blobs/abc'))!).equals(Buffer.from(binary))).toBe(true)
        await store.put('blobs/empty', new Uint8Array(0))
        expect((await store.get('blobs/empty'))?.length).toBe(0)
      }))

    it('create writes only when absent and says so; the first body stays', () =>
      withStore(async (store) => {
        expect(await store.create('meta/keys.json', bytes('first'))).toBe(true)
        expect(await store.create('meta/keys.json', bytes('second'))).toBe(false)
        expect(textOf(await store.get('meta/keys.json'))).toBe('first')
      }))

    it('create is a compare-and-set: of many racing creates exactly one wins', () =>
      withStore(async (store) => {
        const results = await Promise.all(Array.from({ length: 8 }, (_, i) => store.create('meta/race.json', bytes(`writer ${i}`))))
        expect(results.filter(Boolean)).toHaveLength(1)
        const winner = results.indexOf(true)
        expect(textOf(await store.get('meta/race.json'))).toBe(`writer ${winner}`)
      }))

    it('list returns the keys under a prefix, sorted, with sizes, and nothing outside it', () =>
      withStore(async (store) => {
        await store.put('segments/b/000000000002.seg', bytes('22'))
        await store.put('segments/a/000000000001.seg', bytes('1'))
        await store.put('segments/b/000000000001.seg', bytes('333'))
        await store.put('devices/a.json', bytes('{}'))
        expect(await store.list('segments/')).toEqual([
          { key: 'segments/a/000000000001.seg', size: 1 },
          { key: 'segments/b/000000000001.seg', size: 3 },
          { key: 'segments/b/000000000002.seg', size: 2 }
        ])
        expect((await store.list('segments/b/')).map((o) => o.key)).toEqual(['segments/b/000000000001.seg', 'segments/b/000000000002.seg'])
        expect(await store.list('snapshots/')).toEqual([])
      }))

    it('delete removes a key; deleting an absent key is not an error', () =>
      withStore(async (store) => {
        await store.put('snapshots/1.snap', bytes('s'))
        await store.delete('snapshots/1.snap')
        expect(await store.get('snapshots/1.snap')).toBeUndefined()
        expect(await store.list('snapshots/')).toEqual([])
        await store.delete('snapshots/never.snap')
      }))

    it('refuses keys that could leave its place', () =>
      withStore(async (store) => {
        for (const key of ['../escape', 'segments/../../x', '/abs', 'a//b', 'sp ace']) {
          await expect(store.put(key, bytes('x'))).rejects.toBeInstanceOf(SyncStoreError)
          await expect(store.get(key)).rejects.toBeInstanceOf(SyncStoreError)
        }
      }))

    it('holds 200 objects and a 5 MB one', () =>
      withStore(async (store) => {
        await Promise.all(Array.from({ length: 200 }, (_, i) => store.put(`segments/many/${String(i).padStart(12, '0')}.seg`, bytes(String(i)))))
        expect(await store.list('segments/many/')).toHaveLength(200)
        const big = new Uint8Array(5 * 1024 * 1024).fill(7)
        await store.put('blobs/big', big)
        expect((await store.get('blobs/big'))?.length).toBe(big.length)
      }))
  })
}
