/**
 * The real systems the sync stores are tested against, started by the tests themselves on
 * loopback so `npm test` works the same on a developer machine and in CI:
 *
 * - an S3 API: s3rver (npm, in this process) on 127.0.0.1, a temporary folder, one bucket;
 * - WebDAV: `rclone serve webdav` (Debian package `rclone`) over a temporary folder, with a user
 *   and password;
 * - PostgreSQL: a fresh cluster from Debian's `postgresql` binaries (initdb + postgres) in a
 *   temporary folder, on 127.0.0.1 and a free port, password (SCRAM) authentication. initdb refuses
 *   to run as root, so under root (CI) the server runs as the `postgres` OS user.
 *
 * Every `start…` returns a `stop()` that ends the process it started and removes its folder.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import crypto from 'node:crypto'
import { chmodSync, chownSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import pg from 'pg'
import S3rver from 's3rver'

export interface S3Server {
  endpoint: string
  region: string
  bucket: string
  accessKeyId: string
  secretAccessKey: string
  /** Creates another empty bucket. */
  createBucket(name: string): Promise<void>
  /** Writes objects straight into the server's storage (fast set-up for listing many keys). */
  seed(objects: Array<{ key: string; body: Buffer }>): Promise<void>
  stop(): Promise<void>
}

export interface WebdavServer {
  /** The served folder's URL (ends in `/`). */
  url: string
  username: string
  password: string
  /** The folder on disk that is served. */
  dir: string
  stop(): Promise<void>
}

export interface PostgresServer {
  host: string
  port: number
  database: string
  user: string
  password: string
  /** Runs SQL as the cluster's superuser in `database` (or another database). */
  admin<T extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[], database?: string): Promise<pg.QueryResult<T>>
  stop(): Promise<void>
}

/** A port nothing listens on right now (for servers that cannot bind port 0 and tell us). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolvePort(port))
    })
  })
}

function missing(binary: string, debianPackage: string): Error {
  return new Error(`${binary} was not found: install the Debian package "${debianPackage}" (apt-get install ${debianPackage}) to run the sync store tests against the real system.`)
}

function onPath(binary: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${binary}`], { stdio: 'ignore' }).status === 0
}

/** Waits for `ready` to be seen on the child's output; fails with the output when it exits or times out. */
function waitForOutput(child: ChildProcess, ready: RegExp, what: string, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolveReady, reject) => {
    let output = ''
    const timer = setTimeout(() => finish(new Error(`${what} did not start within ${timeoutMs / 1000} s:\n${output}`)), timeoutMs)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = ready.exec(output)
      if (match) finish(undefined, match[1] ?? match[0])
    }
    const onExit = (code: number | null, signal: string | null) => finish(new Error(`${what} exited (${code ?? signal}) before it was ready:\n${output}`))
    const finish = (error?: Error, value?: string) => {
      clearTimeout(timer)
      child.stdout?.off('data', onData)
      child.stderr?.off('data', onData)
      child.off('exit', onExit)
      if (error) reject(error)
      else resolveReady(value ?? '')
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', onExit)
  })
}

/** Servers still running, ended if the test process exits without stopping them (a failed hook, Ctrl-C). */
const running = new Map<ChildProcess, { signal: NodeJS.Signals; dir: string }>()
let exitHookInstalled = false
function track(child: ChildProcess, signal: NodeJS.Signals, dir: string) {
  running.set(child, { signal, dir })
  child.once('exit', () => running.delete(child))
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once('exit', () => {
    for (const [proc, { signal: sig, dir: folder }] of running) {
      proc.kill(sig)
      rmSync(folder, { recursive: true, force: true })
    }
  })
}

function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((done) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
    }, 10_000)
    child.once('exit', () => {
      clearTimeout(timer)
      done()
    })
    child.kill(signal)
  })
}

// ---------------------------------------------------------------------------------------------
// S3: s3rver in this process.

/**
 * `honourIfNoneMatch` makes the server answer a PUT with `If-None-Match: *` on an existing key
 * with 412 PreconditionFailed, as AWS S3, R2 and MinIO do; s3rver itself ignores the header, like
 * older S3-compatible servers, so both paths of the store can be tested.
 */
/**
 * s3rver encrypts its ListObjectsV2 continuation tokens with DES, which OpenSSL 3 (Node 17 and
 * later) no longer offers, so a second page failed with InternalError. Its DES calls get AES with
 * the key and IV doubled: the token stays opaque and round-trips; nothing else uses DES here.
 */
function letS3rverPaginate() {
  const lib = crypto as { createCipheriv: typeof crypto.createCipheriv; createDecipheriv: typeof crypto.createDecipheriv }
  if ((lib.createCipheriv as { s3rverShim?: boolean }).s3rverShim) return
  const widen = (b: crypto.BinaryLike) => Buffer.concat([Buffer.from(b as Uint8Array), Buffer.from(b as Uint8Array)])
  const { createCipheriv, createDecipheriv } = lib
  lib.createCipheriv = Object.assign(
    ((algorithm: string, key: crypto.CipherKey, iv: crypto.BinaryLike | null, options?: unknown) =>
      algorithm === 'des' ? createCipheriv('aes-128-cbc', widen(key as Uint8Array), widen(iv!)) : createCipheriv(algorithm, key, iv, options as never)) as typeof createCipheriv,
    { s3rverShim: true }
  )
  lib.createDecipheriv = ((algorithm: string, key: crypto.CipherKey, iv: crypto.BinaryLike | null, options?: unknown) =>
    algorithm === 'des' ? createDecipheriv('aes-128-cbc', widen(key as Uint8Array), widen(iv!)) : createDecipheriv(algorithm, key, iv, options as never)) as typeof createDecipheriv
}

interface S3rverObject {
  bucket: string
  key: string
  content: Buffer | Readable
  metadata: Record<string, string>
}
interface S3rverStore {
  getResourcePath(bucket: string, key: string, kind: string): string
  putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5: string): Promise<void>
  putObject(object: S3rverObject): Promise<{ size: number; md5: string }>
}

/**
 * s3rver's store resolves a put once its pipe has passed the bytes on (or, for a buffer, once it
 * has handed it to the write stream), not once the file holds them: its PUT could answer before
 * the object was written, and a read right after got it short or empty (a race test read its
 * winner back empty under load). The same steps, awaiting the file's own write.
 */
function writeBeforeAnswering(server: S3rver) {
  const store = server.store as unknown as S3rverStore
  store.putObject = async (object) => {
    const file = store.getResourcePath(object.bucket, object.key, 'object')
    await mkdir(dirname(file), { recursive: true })
    const md5 = crypto.createHash('md5')
    let size = 0
    const source = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content
    await pipeline(
      source,
      async function* (chunks: Readable) {
        for await (const chunk of chunks as AsyncIterable<Buffer>) {
          md5.update(chunk)
          size += chunk.length
          yield chunk
        }
      },
      createWriteStream(file)
    )
    const digest = md5.digest('hex')
    await store.putMetadata(object.bucket, object.key, object.metadata, digest)
    return { size, md5: digest }
  }
}

export async function startS3Server(options: { honourIfNoneMatch?: boolean } = {}): Promise<S3Server> {
  letS3rverPaginate()
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-s3-'))
  const bucket = 'switchboard-sync'
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: bucket, configs: [] }] })
  writeBeforeAnswering(server)
  if (options.honourIfNoneMatch) {
    // Koa composes its middleware when it starts listening: this runs before s3rver's router.
    // Conditional writes in flight count as existing, so the check and the write are one step, as on AWS.
    const writing = new Set<string>()
    server.middleware.unshift(async (ctx, next) => {
      const match = /^\/([^/]+)\/(.+)$/.exec(ctx.path)
      if (ctx.method === 'PUT' && ctx.get('if-none-match') === '*' && match && !('uploadId' in ctx.query)) {
        const id = `${match[1]!}/${decodeURIComponent(match[2]!)}`
        // Reserved before the first await: of two racing requests, the second sees the first.
        const taken = writing.has(id)
        writing.add(id)
        try {
          if (!taken && !(await ctx.store.existsObject(match[1]!, decodeURIComponent(match[2]!)))) {
            await next()
            return
          }
        } finally {
          if (!taken) writing.delete(id)
        }
        ctx.status = 412
        ctx.type = 'application/xml'
        ctx.body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message><Condition>If-None-Match</Condition></Error>'
        return
      }
      await next()
    })
  }
  const address = await server.run()
  const endpoint = `http://127.0.0.1:${address.port}`
  return {
    endpoint,
    region: 'us-east-1',
    bucket,
    // s3rver accepts exactly this key pair and checks every request's signature with it.
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    async createBucket(name) {
      await server.store.putBucket(name)
    },
    async seed(objects) {
      const S3Object = createRequire(import.meta.url)('s3rver/lib/models/object') as new (bucket: string, key: string, content: Buffer, metadata: Record<string, string>) => unknown
      for (let i = 0; i < objects.length; i += 50) {
        await Promise.all(
          objects.slice(i, i + 50).map(({ key, body }) =>
            server.store.putObject(new S3Object(bucket, key, body, { 'content-type': 'application/octet-stream', 'content-length': String(body.length) }))
          )
        )
      }
    },
    async stop() {
      await server.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

// ---------------------------------------------------------------------------------------------
// WebDAV: rclone serve webdav.

export async function startWebdavServer(): Promise<WebdavServer> {
  if (!onPath('rclone')) throw missing('rclone', 'rclone')
  const base = mkdtempSync(join(tmpdir(), 'switchboard-webdav-'))
  const dir = join(base, 'served')
  mkdirSync(dir)
  const username = 'sync-user'
  const password = 'sync-password-1'
  const child = spawn('rclone', ['serve', 'webdav', dir, '--addr', '127.0.0.1:0', '--user', username, '--pass', password, '--log-level', 'NOTICE'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own (empty) config file, never the user's ~/.config/rclone.
    env: { ...process.env, RCLONE_CONFIG: join(base, 'rclone.conf') }
  })
  let started: string
  try {
    started = await waitForOutput(child, /WebDav Server started on (http:\/\/127\.0\.0\.1:\d+\/)/, 'rclone serve webdav')
  } catch (error) {
    await stopChild(child, 'SIGKILL')
    rmSync(base, { recursive: true, force: true })
    throw error
  }
  track(child, 'SIGTERM', base)
  return {
    url: started,
    username,
    password,
    dir,
    async stop() {
      await stopChild(child, 'SIGTERM')
      rmSync(base, { recursive: true, force: true })
    }
  }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL: a fresh cluster from Debian's binaries.

function postgresBin(): string {
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin/initdb'))).sort((a, b) => Number(b) - Number(a)) : []
  if (versions.length > 0) return join(root, versions[0]!, 'bin')
  // Other systems put initdb on PATH.
  const found = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim()
  if (found) return join(found, '..')
  throw missing('PostgreSQL (initdb, postgres)', 'postgresql')
}

/** Under root, the OS user the cluster runs as (initdb and postgres refuse root). */
function postgresOsUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined
  const entry = spawnSync('getent', ['passwd', 'postgres'], { encoding: 'utf8' }).stdout.trim()
  if (!entry) throw new Error('Running as root, the test cluster must run as the "postgres" OS user, which does not exist: install the Debian package "postgresql" (it creates that user).')
  const [, , uid, gid] = entry.split(':')
  return { uid: Number(uid), gid: Number(gid) }
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBin()
  const osUser = postgresOsUser()
  const base = mkdtempSync(join(tmpdir(), 'switchboard-pg-'))
  const data = join(base, 'data')
  const adminUser = 'switchboard_admin'
  const adminPassword = 'admin-password-1'
  const pwfile = join(base, 'pwfile')
  writeFileSync(pwfile, adminPassword + '\n', { mode: 0o600 })
  if (osUser) {
    chownSync(base, osUser.uid, osUser.gid)
    chownSync(pwfile, osUser.uid, osUser.gid)
    chmodSync(base, 0o700)
  }
  const asUser = osUser ? { uid: osUser.uid, gid: osUser.gid } : {}
  const env = { ...process.env, LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8' }
  const init = spawnSync(
    join(bin, 'initdb'),
    ['-D', data, '-U', adminUser, `--pwfile=${pwfile}`, '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C.UTF-8', '--no-sync', '--no-instructions'],
    { encoding: 'utf8', cwd: base, env, ...asUser }
  )
  if (init.status !== 0) {
    rmSync(base, { recursive: true, force: true })
    throw new Error(`initdb failed (${init.status ?? init.signal}): ${init.error?.message ?? ''}\n${init.stdout}\n${init.stderr}`)
  }

  let child: ChildProcess | undefined
  let port = 0
  for (let attempt = 0; attempt < 3 && !child; attempt++) {
    port = await freePort()
    const candidate = spawn(
      join(bin, 'postgres'),
      [
        '-D', data,
        '-p', String(port),
        '-c', 'listen_addresses=127.0.0.1',
        '-c', `unix_socket_directories=${base}`,
        '-c', 'fsync=off',
        '-c', 'synchronous_commit=off',
        '-c', 'full_page_writes=off',
        '-c', 'shared_buffers=16MB',
        '-c', 'max_connections=40'
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], cwd: base, env, ...asUser }
    )
    try {
      await waitForOutput(candidate, /database system is ready to accept connections/, 'PostgreSQL')
      child = candidate
    } catch (error) {
      await stopChild(candidate, 'SIGKILL')
      // Another process took the port between our check and the bind: try another one.
      if (!(error instanceof Error && /could not bind|Address already in use/.test(error.message)) || attempt === 2) {
        rmSync(base, { recursive: true, force: true })
        throw error
      }
    }
  }
  const server = child!
  // Immediate shutdown; and if this process dies without a word, postgres notices its data folder
  // (removed by the hook) is gone within a minute and stops by itself.
  track(server, 'SIGQUIT', base)

  const admin = async <T extends pg.QueryResultRow>(sql: string, params?: unknown[], database = 'postgres') => {
    const client = new pg.Client({ host: '127.0.0.1', port, user: adminUser, password: adminPassword, database })
    await client.connect()
    try {
      return await client.query<T>(sql, params)
    } finally {
      await client.end()
    }
  }
  const user = 'sync_user'
  const password = 'sync-password-1'
  const database = 'switchboard_sync'
  try {
    // What a user does beforehand (docs/sync-stores.md): a role with a password and a database it owns.
    await admin(`CREATE ROLE ${user} LOGIN PASSWORD '${password}'`)
    await admin(`CREATE DATABASE ${database} OWNER ${user}`)
  } catch (error) {
    await stopChild(server, 'SIGQUIT')
    rmSync(base, { recursive: true, force: true })
    throw error
  }

  return {
    host: '127.0.0.1',
    port,
    database,
    user,
    password,
    admin: (sql, params, db = database) => admin(sql, params, db),
    async stop() {
      // SIGQUIT is PostgreSQL's immediate shutdown (pg_ctl stop -m immediate): the data is thrown away.
      await stopChild(server, 'SIGQUIT')
      rmSync(base, { recursive: true, force: true })
    }
  }
}
