import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { link, mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises'
import { dirname, isAbsolute, join, sep } from 'node:path'
import { assertStoreKey, MAX_OBJECT_BYTES, ObjectTooLarge, SyncStoreError, type StoreLimits, type SyncStore } from '../store'

/**
 * A file's bytes, read in as few calls as its size allows into memory of its own: readFile reads in
 * 512 KB pieces, each a trip through the thread pool, which took twice as long for the megabytes of
 * an image chunk (and then handed back a view of its buffer, not a copy, as this does).
 */
async function readWhole(path: string, key: string, limit: number): Promise<Uint8Array> {
  const handle = await open(path, 'r')
  try {
    const { size } = await handle.stat()
    if (size > limit) throw new ObjectTooLarge(key, size, limit)
    const bytes = Buffer.allocUnsafeSlow(size)
    let at = 0
    while (at < size) {
      const { bytesRead } = await handle.read(bytes, at, size - at, at)
      // Shorter than its size said: what is there (as readFile gives it).
      if (bytesRead === 0) break
      at += bytesRead
    }
    return new Uint8Array(bytes.buffer, 0, at)
  } finally {
    await handle.close()
  }
}

/**
 * A plain folder that another program carries (Dropbox, iCloud Drive, Syncthing, a share).
 * `put` writes a temporary file beside the target, flushes it and renames it into place, so a
 * reader (or the carrying program) never sees half an object; `create` links the temporary file
 * to the key, which fails when the key exists: the one compare-and-set the core needs.
 */
export async function openFolderStore(config: { path: string }, options: StoreLimits = {}): Promise<SyncStore> {
  const limit = options.maxObjectBytes ?? MAX_OBJECT_BYTES
  if (!isAbsolute(config.path)) throw new SyncStoreError('SyncStoreInvalid', `The sync folder must be a full path: ${config.path}`, 'Choose the folder with its full path.')
  const root = config.path
  const fail = (error: unknown, what: string): SyncStoreError => {
    if (error instanceof SyncStoreError) return error
    const code = (error as NodeJS.ErrnoException)?.code
    const detail = `${what} in ${root}: ${(error as Error)?.message ?? String(error)}`
    if (code === 'ENOSPC' || code === 'EDQUOT') return new SyncStoreError('SyncStoreFull', `The disk of the sync folder is full (${detail}).`, 'Free space on that disk; your changes are kept until then.', { cause: error })
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
      return new SyncStoreError('SyncStoreAuth', `The sync folder cannot be written (${detail}).`, 'Give Switchboard write access to the folder, or choose another one.', { cause: error })
    if (code === 'ENOENT' || code === 'ENOTDIR')
      return new SyncStoreError('SyncStoreUnreachable', `The sync folder is not there (${detail}).`, 'Check the folder exists and its drive or share is connected; changes are kept and sent when it is back.', { cause: error })
    if (code === 'EIO' || code === 'ETIMEDOUT' || code === 'EHOSTDOWN' || code === 'ESTALE' || code === 'EAGAIN')
      return new SyncStoreError('SyncStoreUnreachable', `The sync folder does not answer (${detail}).`, 'Check the drive or network share; changes are kept and sent when it is back.', { cause: error })
    return new SyncStoreError('SyncStoreFailed', detail, undefined, { cause: error })
  }
  const file = (key: string) => {
    assertStoreKey(key)
    return join(root, ...key.split('/'))
  }
  const present = async () => {
    try {
      if (!(await stat(root)).isDirectory()) throw new SyncStoreError('SyncStoreInvalid', `${root} is not a folder.`, 'Choose a folder for sync.')
    } catch (error) {
      throw fail(error, 'Opening the folder')
    }
  }
  const temp = (target: string) => `${dirname(target)}${sep}.${randomBytes(6).toString('hex')}.tmp`
  /** Writes `body` to a new temporary file beside `target`, flushed to disk. */
  const writeTemp = async (target: string, body: Uint8Array) => {
    await mkdir(dirname(target), { recursive: true })
    const path = temp(target)
    const handle = await open(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600)
    try {
      await handle.writeFile(body)
      await handle.sync()
    } catch (error) {
      await handle.close().catch(() => undefined)
      await unlink(path).catch(() => undefined)
      throw error
    }
    await handle.close()
    return path
  }
  await present()

  const store: SyncStore = {
    kind: 'folder',
    async test() {
      await present()
      const key = `meta/test-${randomBytes(6).toString('hex')}`
      await store.put(key, new Uint8Array([1]))
      const back = await store.get(key)
      await store.delete(key)
      if (back?.[0] !== 1) throw new SyncStoreError('SyncStoreFailed', `What was written to ${root} did not read back.`, 'Check the folder is not on a failing disk.')
    },
    async put(key, body) {
      const target = file(key)
      await present()
      try {
        const path = await writeTemp(target, body)
        try {
          await rename(path, target)
        } catch (error) {
          await unlink(path).catch(() => undefined)
          throw error
        }
      } catch (error) {
        throw fail(error, `Writing ${key}`)
      }
    },
    async create(key, body) {
      const target = file(key)
      await present()
      try {
        const path = await writeTemp(target, body)
        try {
          // link() fails with EEXIST when the key is there: atomic, and the body is whole when it appears.
          await link(path, target)
          return true
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
          throw error
        } finally {
          await unlink(path).catch(() => undefined)
        }
      } catch (error) {
        throw fail(error, `Creating ${key}`)
      }
    },
    async get(key) {
      const target = file(key)
      try {
        return await readWhole(target, key, limit)
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        if (code === 'ENOENT' || code === 'ENOTDIR') {
          await present()
          return undefined
        }
        throw fail(error, `Reading ${key}`)
      }
    },
    async list(prefix) {
      if (prefix !== '') assertStoreKey(prefix)
      await present()
      const out: Array<{ key: string; size: number }> = []
      const walk = async (dir: string, keyPrefix: string): Promise<void> => {
        let entries
        try {
          entries = await readdir(dir, { withFileTypes: true })
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return
          throw fail(error, `Listing ${keyPrefix || '/'}`)
        }
        for (const entry of entries) {
          // Temporary files, and what carrying programs leave (.dropbox, .stfolder, conflict copies), are not objects.
          if (entry.name.startsWith('.') || !/^[A-Za-z0-9._-]+$/.test(entry.name)) continue
          const key = `${keyPrefix}${entry.name}`
          if (entry.isDirectory()) await walk(join(dir, entry.name), `${key}/`)
          else if (entry.isFile()) {
            try {
              out.push({ key, size: (await stat(join(dir, entry.name))).size })
            } catch {
              // Removed while listing.
            }
          }
        }
      }
      const base = prefix.replace(/\/$/, '')
      await walk(base ? join(root, ...base.split('/')) : root, base ? `${base}/` : '')
      return out.filter((o) => o.key.startsWith(prefix)).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    },
    async delete(key) {
      try {
        await rm(file(key), { force: true })
      } catch (error) {
        throw fail(error, `Deleting ${key}`)
      }
    },
    async close() {}
  }
  return store
}
