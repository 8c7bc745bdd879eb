/**
 * The sync store in a WebDAV folder (Nextcloud, ownCloud, Synology, `rclone serve webdav`, any
 * RFC 4918 server), through the `webdav` client. The folder at `config.url` must exist; the
 * collections under it are created as needed.
 *
 * - `put` is all or nothing: the body is uploaded under a temporary name in `.switchboard-tmp/`,
 *   then MOVEd onto the key (a rename on the server), so a reader sees the old object or the new one.
 * - `create` is the same upload followed by MOVE with `Overwrite: F`, which RFC 4918 requires to
 *   fail with 412 when the key exists. We do not rely on `If-None-Match: *` on PUT: common servers
 *   (rclone, Go's x/net/webdav) ignore it and overwrite. A server that ignores `Overwrite: F` too
 *   is found out by a probe on the first `create`, and then gets look-then-move (a narrow race
 *   between two devices, documented in docs/sync-stores.md).
 */
import { Agent as HttpAgent, type AgentOptions } from 'node:http'
import { Agent as HttpsAgent } from 'node:https'
import type { Socket } from 'node:net'
import type { FileStat, WebDAVClient } from 'webdav'
import type { SyncStoreConfig } from '../../../shared/bridge/procedures/sync'
import { assertStoreKey, MAX_OBJECT_BYTES, readLimited, SyncStoreError, type StoreLimits, type SyncStore } from '../store'

export type WebdavStoreConfig = Extract<SyncStoreConfig, { kind: 'webdav' }>

export interface WebdavStoreOptions extends StoreLimits {
  /** How long to wait for a TCP connection before calling the store unreachable. */
  connectTimeoutMs?: number
  /** How long one request may take (a 5 MB upload over a slow line needs minutes). */
  requestTimeoutMs?: number
}

/** Where uploads wait before they are moved onto their key; never listed. */
const TMP = '.switchboard-tmp'
const NETWORK_CODES = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED', 'UND_ERR_CONNECT_TIMEOUT']

const statusOf = (error: unknown): number | undefined => {
  const status = (error as { status?: unknown })?.status
  return typeof status === 'number' ? status : undefined
}

/** A WebDAV failure (HTTP status or network error) as the user can act on it. */
export function mapWebdavError(error: unknown, where: string): SyncStoreError {
  if (error instanceof SyncStoreError) return error
  const e = error as { message?: string; code?: string; name?: string; cause?: { code?: string } } | undefined
  const status = statusOf(error)
  const message = `WebDAV ${where}: ${e?.message ?? String(error)}`
  const options = { cause: error }
  if (status === 401 || status === 403) return new SyncStoreError('SyncStoreAuth', message, 'Check the WebDAV user name, password (an app password on Nextcloud) and the folder’s permissions in Settings → Sync.', options)
  if (status === 507 || status === 413) return new SyncStoreError('SyncStoreFull', message, 'Free space in the WebDAV account or raise its quota.', options)
  if (status === 404 || status === 409 || status === 405 || status === 301 || status === 302) {
    return new SyncStoreError('SyncStoreInvalid', message, 'Create the WebDAV folder first, or correct its address in Settings → Sync.', options)
  }
  const code = e?.code ?? e?.cause?.code ?? ''
  if (
    NETWORK_CODES.includes(code) ||
    e?.name === 'AbortError' ||
    e?.name === 'TimeoutError' ||
    (status !== undefined && (status >= 500 || status === 408 || status === 429)) ||
    /network timeout|socket hang up|ECONNREFUSED|ETIMEDOUT/i.test(e?.message ?? '')
  ) {
    return new SyncStoreError('SyncStoreUnreachable', message, 'Sync will retry; check the WebDAV address and your network.', options)
  }
  if (/self[- ]signed|certificate/i.test(e?.message ?? '')) return new SyncStoreError('SyncStoreInvalid', message, 'The server’s TLS certificate is not trusted; use a certificate from a known authority.', options)
  return new SyncStoreError('SyncStoreFailed', message, undefined, options)
}

/** Agents whose connections give up after `connectTimeoutMs` (node's `timeout` is an idle timeout, not this). */
function agents(connectTimeoutMs: number) {
  const limit = (socket: Socket) => {
    if (socket.connecting === false) return socket
    const timer = setTimeout(() => socket.destroy(Object.assign(new Error(`connect ETIMEDOUT after ${connectTimeoutMs} ms`), { code: 'ETIMEDOUT' })), connectTimeoutMs)
    socket.once('connect', () => clearTimeout(timer))
    socket.once('close', () => clearTimeout(timer))
    return socket
  }
  class Http extends HttpAgent {
    override createConnection(...args: Parameters<HttpAgent['createConnection']>) {
      return limit(super.createConnection(...args) as Socket)
    }
  }
  class Https extends HttpsAgent {
    override createConnection(...args: Parameters<HttpsAgent['createConnection']>) {
      return limit(super.createConnection(...args) as Socket)
    }
  }
  const options: AgentOptions = { keepAlive: true, maxSockets: 6 }
  return { httpAgent: new Http(options), httpsAgent: new Https(options) }
}

const dirOf = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf('/')))

export async function openWebdavStore(config: WebdavStoreConfig, secret?: string, options: WebdavStoreOptions = {}): Promise<SyncStore> {
  // Loaded on first use, like the provider SDKs: most starts never open a WebDAV store.
  const { createClient } = await import('webdav')
  const { httpAgent, httpsAgent } = agents(options.connectTimeoutMs ?? 10_000)
  const url = config.url.endsWith('/') ? config.url : config.url + '/'
  const client: WebDAVClient = createClient(url, {
    ...(config.username ? { username: config.username, password: secret ?? '' } : {}),
    httpAgent,
    httpsAgent,
    maxBodyLength: Infinity,
    maxContentLength: Infinity
  })
  const requestTimeoutMs = options.requestTimeoutMs ?? 300_000
  const limit = options.maxObjectBytes ?? MAX_OBJECT_BYTES
  const signal = () => ({ signal: AbortSignal.timeout(requestTimeoutMs) })

  const send = async <T>(where: string, action: () => Promise<T>): Promise<T> => {
    try {
      return await action()
    } catch (error) {
      throw mapWebdavError(error, where)
    }
  }

  /** Collections known to exist (created or seen by this store). */
  const collections = new Set<string>([''])
  /** MKCOLs in flight, so many puts into a new folder at once make it once. */
  const making = new Map<string, Promise<void>>()
  const mkcolOnce = async (path: string) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await client.customRequest('/' + path + '/', { method: 'MKCOL', ...signal() })
        return
      } catch (error) {
        const status = statusOf(error)
        // 405: it exists already (another device made it first); some servers say 301 for a folder.
        if (status === 405 || status === 301) return
        // 423: another client is making the same folder right now (rclone locks it): wait, ask again.
        if (status === 423 && attempt < 8) {
          await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** Math.min(attempt, 4)))
          continue
        }
        if (status === 409 || status === 404) {
          throw new SyncStoreError('SyncStoreInvalid', `WebDAV: the folder ${url} does not exist.`, 'Create the WebDAV folder first, or correct its address in Settings → Sync.', { cause: error })
        }
        throw error
      }
    }
  }
  const mkcol = async (path: string) => {
    let pending = making.get(path)
    if (!pending) {
      pending = mkcolOnce(path).finally(() => making.delete(path))
      making.set(path, pending)
    }
    await pending
    collections.add(path)
  }
  /** Creates `dir` and the collections above it, top down. */
  const ensureCollection = async (dir: string) => {
    if (collections.has(dir)) return
    const parts = dir.split('/')
    for (let i = 1; i <= parts.length; i++) {
      const path = parts.slice(0, i).join('/')
      if (!collections.has(path)) await mkcol(path)
    }
  }

  /** Uploads to a temporary name; returns it. */
  const upload = async (body: Uint8Array): Promise<string> => {
    const tmp = `${TMP}/${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}.part`
    await ensureCollection(TMP)
    const data = Buffer.from(body.buffer, body.byteOffset, body.byteLength)
    try {
      await client.putFileContents('/' + tmp, data, { overwrite: true, contentLength: body.byteLength, ...signal() })
    } catch (error) {
      // The temporary collection was removed behind our back: make it again, once.
      if (statusOf(error) !== 404 && statusOf(error) !== 409) throw error
      collections.delete(TMP)
      await ensureCollection(TMP)
      await client.putFileContents('/' + tmp, data, { overwrite: true, contentLength: body.byteLength, ...signal() })
    }
    return tmp
  }

  const moveOnto = async (tmp: string, key: string, overwrite: boolean): Promise<boolean> => {
    await ensureCollection(dirOf(key))
    for (let attempt = 0; ; attempt++) {
      try {
        await client.moveFile('/' + tmp, '/' + key, { overwrite, ...signal() })
        return true
      } catch (error) {
        // 423: another device is moving onto the same name right now (rclone locks it while it
        // does): wait and ask again; then it is there (412 for a create) or ours replaces it.
        if (statusOf(error) === 423 && attempt < 8) {
          await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** Math.min(attempt, 4)))
          continue
        }
        // The upload stays behind only when this delete fails too; a stale one costs nothing but space.
        await client.deleteFile('/' + tmp, signal()).catch(() => undefined)
        if (!overwrite && statusOf(error) === 412) return false
        throw error
      }
    }
  }

  const getFile = async (key: string): Promise<Uint8Array | undefined> => {
    try {
      // Not getFileContents: it takes in the whole body before anyone can look at its length.
      const response = await client.customRequest('/' + key, { method: 'GET', ...signal() })
      const declared = response.headers.get('content-length')
      return await readLimited(key, (response as unknown as { body: AsyncIterable<Uint8Array> & { destroy?(): void } }).body, declared === null ? undefined : Number(declared), limit)
    } catch (error) {
      if (statusOf(error) === 404) return undefined
      throw error
    }
  }

  const rootExists = () =>
    client.stat('/', signal()).then(
      () => true,
      (error: unknown) => {
        if (statusOf(error) === 404) return false
        throw error
      }
    )

  /** Whether the server refuses MOVE with `Overwrite: F` onto an existing name; found out once. */
  let honoursOverwriteF: Promise<boolean> | undefined
  const probeOverwriteF = () =>
    (honoursOverwriteF ??= (async () => {
      const probe = `.probe/overwrite-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`
      const first = await upload(new TextEncoder().encode('a'))
      await moveOnto(first, probe, true)
      try {
        const second = await upload(new TextEncoder().encode('b'))
        return !(await moveOnto(second, probe, false))
      } finally {
        await client.deleteFile('/' + probe, signal()).catch(() => undefined)
      }
    })().catch((error: unknown) => {
      honoursOverwriteF = undefined
      throw error
    }))

  return {
    kind: 'webdav',
    async test() {
      await send('test', async () => {
        const root = await client.stat('/', signal()).catch((error: unknown) => {
          if (statusOf(error) === 404) throw new SyncStoreError('SyncStoreInvalid', `WebDAV test: the folder ${url} does not exist.`, 'Create the WebDAV folder first, or correct its address in Settings → Sync.', { cause: error })
          throw error
        })
        if ((root as FileStat).type !== 'directory') throw new SyncStoreError('SyncStoreInvalid', `WebDAV test: ${url} is a file, not a folder.`, 'Give the address of a folder in Settings → Sync.')
        const probe = `.probe/test-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`
        const body = new TextEncoder().encode('switchboard sync store test')
        await moveOnto(await upload(body), probe, true)
        const back = await getFile(probe)
        await client.deleteFile('/' + probe, signal())
        if (!back || !Buffer.from(back).equals(Buffer.from(body))) throw new SyncStoreError('SyncStoreFailed', 'WebDAV test: the object written could not be read back.')
      })
    },
    async put(key, body) {
      assertStoreKey(key)
      await send('put', async () => {
        await moveOnto(await upload(body), key, true)
      })
    },
    async create(key, body) {
      assertStoreKey(key)
      return send('create', async () => {
        if (await probeOverwriteF()) return moveOnto(await upload(body), key, false)
        // The server overwrites whatever the header says: look first (a narrow race remains).
        if ((await getFile(key)) !== undefined) return false
        return moveOnto(await upload(body), key, true)
      })
    },
    async get(key) {
      assertStoreKey(key)
      return send('get', () => getFile(key))
    },
    async list(prefix) {
      if (prefix !== '') assertStoreKey(prefix)
      return send('list', async () => {
        // Folders are walked one level at a time: many servers (Nextcloud among them) refuse Depth: infinity.
        const start = prefix.endsWith('/') || prefix === '' ? prefix.replace(/\/$/, '') : dirOf(prefix)
        const out: Array<{ key: string; size: number }> = []
        const pending = [start]
        while (pending.length > 0) {
          const batch = pending.splice(0, 4)
          const listings = await Promise.all(
            batch.map(async (dir) => {
              try {
                return { dir, items: (await client.getDirectoryContents(dir === '' ? '/' : '/' + dir + '/', signal())) as FileStat[] }
              } catch (error) {
                // A prefix nobody wrote under yet is an empty list, not an error; a missing root folder is one.
                if (statusOf(error) === 404 && dir !== '' && (await rootExists())) return { dir, items: [] }
                throw error
              }
            })
          )
          for (const { dir, items } of listings) {
            for (const item of items) {
              const key = dir === '' ? item.basename : `${dir}/${item.basename}`
              if (dir === '' && (item.basename === TMP || item.basename === '.probe')) continue
              if (item.type === 'directory') {
                if ((key + '/').startsWith(prefix) || prefix.startsWith(key + '/')) pending.push(key)
              } else if (key.startsWith(prefix)) {
                out.push({ key, size: item.size })
              }
            }
          }
        }
        return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      })
    },
    async delete(key) {
      assertStoreKey(key)
      await send('delete', async () => {
        try {
          await client.deleteFile('/' + key, signal())
        } catch (error) {
          if (statusOf(error) !== 404) throw error
        }
      })
    },
    async close() {
      httpAgent.destroy()
      httpsAgent.destroy()
    }
  }
}
