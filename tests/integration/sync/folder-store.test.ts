import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openFolderStore } from '../../../src/core/sync/stores/folder'
import { describeSyncStoreContract } from './store-contract'

describeSyncStoreContract('folder', () => openFolderStore({ path: mkdtempSync(join(tmpdir(), 'sb-folder-store-')) }))

describe('folder store faults', () => {
  it('a folder that is gone is unreachable (changes are kept); a relative path is refused', async () => {
    const path = mkdtempSync(join(tmpdir(), 'sb-folder-gone-'))
    const store = await openFolderStore({ path })
    rmSync(path, { recursive: true })
    await expect(store.put('segments/a/000000000001.seg', new Uint8Array([1]))).rejects.toMatchObject({ code: 'SyncStoreUnreachable' })
    await expect(store.list('segments/')).rejects.toMatchObject({ code: 'SyncStoreUnreachable' })
    await expect(openFolderStore({ path: 'relative/folder' })).rejects.toMatchObject({ code: 'SyncStoreInvalid' })
  })

  it('a file where the folder should be is not a store', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sb-folder-file-')), 'file')
    writeFileSync(file, 'x')
    await expect(openFolderStore({ path: file })).rejects.toMatchObject({ code: 'SyncStoreInvalid' })
  })

  it('temporary files and what carrying programs leave are not listed; no temporary file stays after a put', async () => {
    const path = mkdtempSync(join(tmpdir(), 'sb-folder-tmp-'))
    const store = await openFolderStore({ path })
    await store.put('segments/a/000000000001.seg', new Uint8Array([1]))
    writeFileSync(join(path, 'segments', 'a', '.abc.tmp'), 'half')
    writeFileSync(join(path, 'segments', 'a', '000000000001 (conflicted copy).seg'), 'x')
    expect((await store.list('segments/')).map((o) => o.key)).toEqual(['segments/a/000000000001.seg'])
    await store.create('meta/keys.json', new Uint8Array([2]))
    expect(readdirSync(join(path, 'meta'))).toEqual(['keys.json'])
  })
})
