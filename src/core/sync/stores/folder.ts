import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { link, lstat, mkdir, open, readdir, realpath, rename, stat, unlink } from 'node:fs/promises'
import { isAbsolute, join, sep } from 'node:path'
import { assertStoreKey, LinkInStore, MAX_OBJECT_BYTES, ObjectTooLarge, SyncStoreError, type StoreLimits, type SyncStore } from '../store'

/** Opening the last part of a path fails (ELOOP) when it is a link. Windows has no such flag: there `get` looks first. */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0

/**
 * A file's bytes, read in as few calls as its size allows into memory of its own: readFile reads in
 * 512 KB pieces, each a trip through the thread pool, which took twice as long for the megabytes of
 * an image chunk (and then handed back a view of its buffer, not a copy, as this does).
 */
async function readWhole(path: string, key: string, limit: number): Promise<Uint8Array> {
  if (!NO_FOLLOW && (await lstat(path)).isSymbolicLink()) throw new LinkInStore(key)
  let handle
  try {
    handle = await open(path, constants.O_RDONLY | NO_FOLLOW)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new LinkInStore(key)
    throw error
  }
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
 *
 * Others can write the folder too, and one may plant a link (to a user's documents) where sync
 * keeps a folder or an object. No call follows one: every folder on the way from the root is
 * looked at without following links, an object is opened with O_NOFOLLOW, a put renames over a
 * linked name (replacing the link, not what it points at), and a link met by a listing or a
 * delete is left alone and named (`takeRefused`).
 */
export async function openFolderStore(config: { path: string }, options: StoreLimits = {}): Promise<SyncStore> {
  const limit = options.maxObjectBytes ?? MAX_OBJECT_BYTES
  if (!isAbsolute(config.path)) throw new SyncStoreError('SyncStoreInvalid', `The sync folder must be a full path: ${config.path}`, 'Choose the folder with its full path.')
  let root = config.path
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
  /** Store keys met as links since the round last asked. */
  const refused = new Set<string>()
  /**
   * The real folder holding `key`'s object (for a prefix ending in `/`, that folder itself), each
   * folder on the way checked not to be a link; made where missing when `create` (one level at a
   * time, never through a link). Undefined when a folder on the way is not there.
   */
  const folderOf = async (key: string, create: boolean): Promise<string | undefined> => {
    assertStoreKey(key)
    const parts = key.split('/')
    parts.pop()
    let dir = root
    for (const [i, part] of parts.entries()) {
      dir = join(dir, part)
      let info
      try {
        info = await lstat(dir)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !create) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined
          throw error
        }
        await mkdir(dir).catch((made: NodeJS.ErrnoException) => {
          if (made.code !== 'EEXIST') throw made
        })
        info = await lstat(dir)
      }
      if (info.isSymbolicLink()) throw new LinkInStore(parts.slice(0, i + 1).join('/'))
      if (!info.isDirectory()) {
        if (!create) return undefined
        throw Object.assign(new Error(`${parts.slice(0, i + 1).join('/')} is a file where sync keeps a folder`), { code: 'ENOTDIR' })
      }
    }
    // Looked at part by part above; this also catches a link swapped in meanwhile, or a mount.
    if ((await realpath(dir)) !== dir) throw new LinkInStore(parts.join('/') || key)
    return dir
  }
  const file = async (key: string, create = false) => {
    const dir = await folderOf(key, create)
    return dir === undefined ? undefined : join(dir, key.split('/').pop()!)
  }
  const present = async () => {
    try {
      if (!(await stat(root)).isDirectory()) throw new SyncStoreError('SyncStoreInvalid', `${root} is not a folder.`, 'Choose a folder for sync.')
    } catch (error) {
      throw fail(error, 'Opening the folder')
    }
  }
  /** Writes `body` to a new temporary file in `dir` (checked by `folderOf`), flushed to disk. */
  const writeTemp = async (dir: string, body: Uint8Array) => {
    const path = `${dir}${sep}.${randomBytes(6).toString('hex')}.tmp`
    const handle = await open(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | NO_FOLLOW, 0o600)
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
  // The folder the user chose may itself be reached through a link (a Dropbox folder moved to
  // another disk): that one is theirs, resolved once. Below it, nothing is followed.
  root = await realpath(root)

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
      await present()
      try {
        const target = (await file(key, true))!
        const path = await writeTemp(join(target, '..'), body)
        try {
          // Over a name that is a link, rename replaces the link itself.
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
      await present()
      try {
        const target = (await file(key, true))!
        const path = await writeTemp(join(target, '..'), body)
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
      try {
        const target = await file(key)
        if (target === undefined) {
          await present()
          return undefined
        }
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
          if (entry.isSymbolicLink()) refused.add(key)
          else if (entry.isDirectory()) await walk(join(dir, entry.name), `${key}/`)
          else if (entry.isFile()) {
            try {
              out.push({ key, size: (await lstat(join(dir, entry.name))).size })
            } catch {
              // Removed while listing.
            }
          }
        }
      }
      const base = prefix.replace(/\/$/, '')
      let start: string | undefined
      try {
        start = base ? await folderOf(`${base}/`, false) : root
      } catch (error) {
        if (!(error instanceof LinkInStore)) throw fail(error, `Listing ${prefix}`)
        refused.add(error.key)
        return []
      }
      if (start === undefined) return []
      await walk(start, base ? `${base}/` : '')
      return out.filter((o) => o.key.startsWith(prefix)).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    },
    async delete(key) {
      try {
        const target = await file(key)
        if (target === undefined) return
        // A link where the object was is left, and named: it is not sync's to remove either.
        if ((await lstat(target)).isSymbolicLink()) throw new LinkInStore(key)
        await unlink(target)
      } catch (error) {
        if (error instanceof LinkInStore) {
          refused.add(error.key)
          return
        }
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
        throw fail(error, `Deleting ${key}`)
      }
    },
    takeRefused() {
      const keys = [...refused]
      refused.clear()
      return keys
    },
    async close() {}
  }
  return store
}
