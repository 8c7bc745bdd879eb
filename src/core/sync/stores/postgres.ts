/**
 * The sync store in a PostgreSQL database (self-hosted, Supabase, Neon…): one table of objects,
 * and LISTEN/NOTIFY so another device's write reaches this one at once instead of at the next poll.
 *
 * - The table `switchboard_sync_objects` lives in `config.schema` (or `public`) and is created on
 *   first use when the role may; a database administrator can create it instead and grant only
 *   SELECT/INSERT/UPDATE/DELETE (docs/sync-stores.md).
 * - `key` is compared byte by byte (COLLATE "C"), so prefix listing and ordering do not depend on
 *   the database's locale and use the primary key index.
 * - Every write sends NOTIFY in its own transaction: a listener hears of a key only once it can read it.
 * - A connection can die without a word (a laptop asleep while the server or a NAT dropped it): a
 *   statement gives up after `requestTimeoutMs`, the listening connection is asked every minute
 *   whether it still answers, and closing never waits on one for more than a second.
 */
import { Socket } from 'node:net'
import type pg from 'pg'
import { settledWithin } from '../../../shared/utils/settled-within'
import type { SyncStoreConfig } from '../../../shared/bridge/procedures/sync'
import { assertStoreKey, MAX_OBJECT_BYTES, ObjectTooLarge, SyncStoreError, type StoreLimits, type SyncStore } from '../store'

export type PostgresStoreConfig = Extract<SyncStoreConfig, { kind: 'postgres' }>

export interface PostgresStoreOptions extends StoreLimits {
  /** How long to wait for a connection before calling the store unreachable. */
  connectTimeoutMs?: number
  /** First delay before the listening connection reconnects (doubles up to 30 s). */
  reconnectDelayMs?: number
  /** How often the listening connection is asked whether it still answers (it only ever receives otherwise). */
  heartbeatMs?: number
  /** How long that answer may take before the connection is taken for dead and replaced. */
  heartbeatTimeoutMs?: number
  /** How long one statement may take, from sending it to its last byte (an object of 256 MB over a slow line needs minutes). */
  requestTimeoutMs?: number
}

/** How long closing waits for a connection to end politely before it is cut. */
const CLOSE_WAIT_MS = 1_000

/** Cuts a client's connection at once (one that stopped answering would hold a polite end for ever). */
function cut(client: pg.Client): void {
  client.end().catch(() => undefined)
  ;(client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy()
}

const TABLE = 'switchboard_sync_objects'

/** SQLSTATE classes and codes as the user can act on them. */
export function mapPostgresError(error: unknown, where: string): SyncStoreError {
  if (error instanceof SyncStoreError) return error
  const e = error as { code?: string; message?: string; errno?: number } | undefined
  const code = typeof e?.code === 'string' ? e.code : ''
  const message = `PostgreSQL ${where}: ${e?.message ?? String(error)}`
  const options = { cause: error }
  if (code === '28P01' || code === '28000') return new SyncStoreError('SyncStoreAuth', message, 'Check the PostgreSQL user and password in Settings → Sync.', options)
  if (code === '42501') return new SyncStoreError('SyncStoreAuth', message, `Grant the role the rights on the table ${TABLE} (or its schema) listed in the sync store guide.`, options)
  if (code === '3D000') return new SyncStoreError('SyncStoreInvalid', message, 'Create the database first, or correct its name in Settings → Sync.', options)
  if (code === '3F000') return new SyncStoreError('SyncStoreInvalid', message, 'Create the schema first, or correct its name in Settings → Sync.', options)
  if (code === '53100') return new SyncStoreError('SyncStoreFull', message, 'Free disk space on the database server or raise its storage limit.', options)
  if (code === '53400' || code === '54000') return new SyncStoreError('SyncStoreFull', message, 'Raise the database’s storage or configuration limit, or compact the sync store.', options)
  // Connection exceptions, too many connections, the server shutting down or restarting: try again later.
  if (/^08/.test(code) || code === '53300' || code === '57P01' || code === '57P02' || code === '57P03' || code === '57P05') {
    return new SyncStoreError('SyncStoreUnreachable', message, 'Sync will retry; check that the database server is running.', options)
  }
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN'].includes(code)) {
    return new SyncStoreError('SyncStoreUnreachable', message, 'Sync will retry; check the host, the port and your network.', options)
  }
  const text = e?.message ?? ''
  if (/timeout|Connection terminated|terminating connection|Client has encountered a connection error/i.test(text)) {
    return new SyncStoreError('SyncStoreUnreachable', message, 'Sync will retry; check the host, the port and your network.', options)
  }
  if (/does not support SSL/i.test(text)) return new SyncStoreError('SyncStoreInvalid', message, 'Turn off SSL for this server in Settings → Sync, or enable SSL on the server.', options)
  if (/self[- ]signed|certificate/i.test(text)) return new SyncStoreError('SyncStoreInvalid', message, 'The server’s TLS certificate is not trusted; use a certificate from a known authority.', options)
  return new SyncStoreError('SyncStoreFailed', message, undefined, options)
}

/** An identifier quoted for SQL (as pg's escapeIdentifier, without loading pg to call it). */
const ident = (name: string) => `"${name.replace(/"/g, '""')}"`

/** The connection died under the statement (not the statement's own fault). */
function connectionLost(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | undefined
  const code = typeof e?.code === 'string' ? e.code : ''
  return /^08/.test(code) || ['57P01', '57P02', '57P03', 'ECONNRESET', 'EPIPE'].includes(code) || /Connection terminated unexpectedly|terminating connection|Client has encountered a connection error/i.test(String(e?.message ?? ''))
}

/** `"schema"."table"` from a schema name that may need quoting. */
function qualified(schema: string): string {
  return `${ident(schema)}.${ident(TABLE)}`
}

/** LIKE pattern of everything under `prefix`; keys hold only [A-Za-z0-9._/-], of which `_` is special. */
function likePrefix(prefix: string): string {
  return prefix.replace(/[\\%_]/g, (c) => `\\${c}`) + '%'
}

const asBytes = (value: Buffer): Uint8Array => new Uint8Array(value.buffer, value.byteOffset, value.byteLength)

export async function openPostgresStore(config: PostgresStoreConfig, secret?: string, options: PostgresStoreOptions = {}): Promise<SyncStore> {
  // Loaded on first use, like the provider SDKs: most starts never open a PostgreSQL store.
  const { default: pgModule } = await import('pg')
  const schema = config.schema?.trim() || 'public'
  const table = qualified(schema)
  const limit = options.maxObjectBytes ?? MAX_OBJECT_BYTES
  // The channel carries the schema so two stores in one database do not wake each other.
  const channel = schema === 'public' ? 'switchboard_sync' : `switchboard_sync_${schema}`.slice(0, 63)
  const sockets = new Set<Socket>()
  const connection: pg.ClientConfig = {
    host: config.host,
    port: config.port,
    database: config.database,
    user: config.user,
    password: secret ?? '',
    ssl: config.ssl ? { rejectUnauthorized: true } : false,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    application_name: 'switchboard-sync',
    keepAlive: true,
    query_timeout: options.requestTimeoutMs ?? 300_000,
    // Every connection's socket, so closing can cut those that no longer answer.
    stream: () => {
      const socket = new Socket()
      sockets.add(socket)
      socket.once('close', () => sockets.delete(socket))
      return socket
    }
  }
  const pool = new pgModule.Pool({ ...connection, max: 4, idleTimeoutMillis: 30_000 })
  // A pooled connection the server drops while idle must not crash the app: the next query gets a new one.
  pool.on('error', () => undefined)
  // Backends of this store: their NOTIFYs are this device's own writes, not news.
  const ownBackends = new Set<number>()
  pool.on('connect', (client) => {
    const pid = (client as unknown as { processID?: number }).processID
    if (pid) ownBackends.add(pid)
  })
  pool.on('remove', (client) => {
    const pid = (client as unknown as { processID?: number }).processID
    if (pid) ownBackends.delete(pid)
  })

  /**
   * A pooled connection the server ended while it sat idle (a restart, a proxy's timeout, an
   * administrator) fails the next statement; one more try on a fresh connection is what the user
   * would do. `create` is not retried when its COMMIT may have gone through.
   */
  const retried = async <T>(where: string, action: () => Promise<T>, retry = true): Promise<T> => {
    try {
      return await action()
    } catch (error) {
      if (!retry || !connectionLost(error)) throw mapPostgresError(error, where)
      try {
        return await action()
      } catch (again) {
        throw mapPostgresError(again, where)
      }
    }
  }

  const run = <T extends pg.QueryResultRow>(where: string, sql: string, params?: unknown[]): Promise<pg.QueryResult<T>> => retried(where, () => pool.query<T>(sql, params))

  /** Runs `sql` and its NOTIFY in one transaction. */
  const write = <T extends pg.QueryResultRow>(where: string, key: string, sql: string, params: unknown[], idempotent = true): Promise<pg.QueryResult<T>> => {
    let committing = false
    return retried(
      where,
      async () => {
        committing = false
        const client = await pool.connect()
        // The socket closing after a failed statement is reported as an event too; it is the same failure.
        const ignore = () => undefined
        client.on('error', ignore)
        let failure: unknown
        try {
          await client.query('BEGIN')
          const result = await client.query<T>(sql, params)
          if ((result.rowCount ?? 0) > 0) await client.query('SELECT pg_notify($1, $2)', [channel, key])
          committing = true
          await client.query('COMMIT')
          return result
        } catch (error) {
          failure = error
          if (!connectionLost(error)) await client.query('ROLLBACK').catch(() => undefined)
          throw error
        } finally {
          client.off('error', ignore)
          // A connection that failed is not given back to the pool.
          client.release(failure !== undefined && connectionLost(failure) ? (failure as Error) : undefined)
        }
      },
      idempotent || !committing
    )
  }

  let ready: Promise<void> | undefined
  /** Creates the table when it is missing; a role without CREATE works with a table made for it. */
  const ensureTable = () =>
    (ready ??= (async () => {
      // Devices creating the schema or table at the same moment: one wins each catalog row, the
      // others fail on it and find it made on the next look. IF NOT EXISTS does not guard against
      // a concurrent CREATE: a loser fails on the schema (42P06), the table (42P07), the table's
      // row type (42710 'type … already exists') or the catalog index (23505), and may lose the
      // schema's race and then the table's, so it looks again a few times.
      for (let attempt = 1; ; attempt++) {
        try {
          return await createTable()
        } catch (error) {
          const raced = ['23505', '42P06', '42P07', '42710'].includes(String((error as { cause?: { code?: unknown } })?.cause?.code))
          if (!raced || attempt >= 5) throw error
        }
      }
    })().catch((error: unknown) => {
      ready = undefined
      throw error
    }))
  const createTable = async () => {
      const exists = await run<{ t: string | null }>('setup', 'SELECT to_regclass($1) AS t', [table])
      if (exists.rows[0]?.t) return
      const hasSchema = await run('setup', 'SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])
      if (hasSchema.rowCount === 0) {
        if (schema === 'public') throw new SyncStoreError('SyncStoreInvalid', 'PostgreSQL setup: the database has no public schema.', 'Set a schema in Settings → Sync that the user can write to.')
        await run('setup', `CREATE SCHEMA IF NOT EXISTS ${ident(schema)}`)
      }
      const create = `CREATE TABLE IF NOT EXISTS ${table} (
        key text COLLATE "C" PRIMARY KEY,
        body bytea NOT NULL,
        size int,
        created_at timestamptz NOT NULL DEFAULT now()
      )`
      await run('setup', create)
  }

  const listeners = new Set<ListenState>()
  let closed = false

  const store: SyncStore = {
    kind: 'postgres',
    async test() {
      await ensureTable()
      const probe = `.probe/${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`
      const body = new TextEncoder().encode('switchboard sync store test')
      await run('test', `INSERT INTO ${table} (key, body, size) VALUES ($1, $2, $3)`, [probe, Buffer.from(body), body.length])
      const back = await run<{ body: Buffer }>('test', `SELECT body FROM ${table} WHERE key = $1`, [probe])
      await run('test', `DELETE FROM ${table} WHERE key = $1`, [probe])
      if (!back.rows[0] || !Buffer.from(body).equals(back.rows[0].body)) throw new SyncStoreError('SyncStoreFailed', 'PostgreSQL test: the object written could not be read back.')
    },
    async put(key, body) {
      assertStoreKey(key)
      await ensureTable()
      // created_at is when this version was written: a listener that lost its connection catches up by it.
      await write('put', key, `INSERT INTO ${table} (key, body, size) VALUES ($1, $2, $3)
        ON CONFLICT (key) DO UPDATE SET body = EXCLUDED.body, size = EXCLUDED.size, created_at = now()`, [key, Buffer.from(body.buffer, body.byteOffset, body.byteLength), body.byteLength])
    },
    async create(key, body) {
      assertStoreKey(key)
      await ensureTable()
      const result = await write(
        'create',
        key,
        `INSERT INTO ${table} (key, body, size) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING`,
        [key, Buffer.from(body.buffer, body.byteOffset, body.byteLength), body.byteLength],
        false
      )
      return (result.rowCount ?? 0) > 0
    },
    async get(key) {
      assertStoreKey(key)
      await ensureTable()
      // The length first (PostgreSQL knows it without reading the value): a body over the limit is not sent.
      const result = await run<{ body: Buffer | null; size: string }>('get', `SELECT CASE WHEN octet_length(body) <= $2 THEN body END AS body, octet_length(body) AS size FROM ${table} WHERE key = $1`, [key, limit])
      const row = result.rows[0]
      if (!row) return undefined
      if (Number(row.size) > limit) throw new ObjectTooLarge(key, Number(row.size), limit)
      return row.body ? asBytes(row.body) : new Uint8Array()
    },
    async list(prefix) {
      if (prefix !== '') assertStoreKey(prefix)
      await ensureTable()
      const result = await run<{ key: string; size: number | null }>('list', `SELECT key, coalesce(size, octet_length(body)) AS size FROM ${table} WHERE key LIKE $1 ORDER BY key`, [likePrefix(prefix)])
      return result.rows.filter((row) => !row.key.startsWith('.probe/') || prefix.startsWith('.probe/')).map((row) => ({ key: row.key, size: Number(row.size) }))
    },
    async delete(key) {
      assertStoreKey(key)
      await ensureTable()
      await write('delete', key, `DELETE FROM ${table} WHERE key = $1`, [key])
    },
    async watch(onChange) {
      await ensureTable()
      const state = new ListenState(pgModule, connection, channel, table, ownBackends, onChange, {
        reconnectDelayMs: options.reconnectDelayMs ?? 500,
        heartbeatMs: options.heartbeatMs ?? 60_000,
        heartbeatTimeoutMs: options.heartbeatTimeoutMs ?? 10_000
      })
      await state.start()
      listeners.add(state)
      return async () => {
        listeners.delete(state)
        await state.stop()
      }
    },
    async close() {
      if (closed) return
      closed = true
      await Promise.all([...listeners].map((l) => l.stop()))
      listeners.clear()
      await settledWithin(pool.end(), CLOSE_WAIT_MS)
      for (const socket of sockets) socket.destroy()
    }
  }
  return store
}

/**
 * One dedicated connection that LISTENs; when it drops (server restart, network, an administrator
 * ending it) it reconnects with back-off and reports the keys written meanwhile, so no change is missed.
 * It only ever receives, so a connection that died without a word (no FIN after a sleep) would
 * look like a quiet one for hours: every `heartbeatMs` it is asked for an answer, and replaced
 * when none comes within `heartbeatTimeoutMs`.
 */
class ListenState {
  private client: pg.Client | undefined
  private stopped = false
  private timer: NodeJS.Timeout | undefined
  private delay: number
  /** Server time of the last moment we were surely listening. */
  private listeningSince: Date | undefined
  private heartbeat: NodeJS.Timeout | undefined
  private readonly firstDelay: number

  constructor(
    private readonly pgModule: typeof pg,
    private readonly connection: pg.ClientConfig,
    private readonly channel: string,
    private readonly table: string,
    private readonly ownBackends: Set<number>,
    private readonly onChange: (key: string) => void,
    private readonly timing: { reconnectDelayMs: number; heartbeatMs: number; heartbeatTimeoutMs: number }
  ) {
    this.firstDelay = this.delay = timing.reconnectDelayMs
  }

  /** The first connection must succeed: a watch that cannot start is an error the caller sees. */
  async start(): Promise<void> {
    await this.connect(false)
  }

  private async connect(catchUp: boolean): Promise<void> {
    const client = new this.pgModule.Client(this.connection)
    client.on('error', () => this.lost(client))
    client.on('end', () => this.lost(client))
    client.on('notification', (message) => {
      if (message.channel !== this.channel || !message.payload || this.ownBackends.has(message.processId)) return
      this.deliver(message.payload)
    })
    try {
      await client.connect()
      await client.query(`LISTEN ${ident(this.channel)}`)
      const now = await client.query<{ now: Date }>('SELECT now() AS now')
      if (this.stopped) {
        cut(client)
        return
      }
      this.client = client
      this.beat(client)
      const since = this.listeningSince
      this.listeningSince = now.rows[0]?.now
      this.delay = this.firstDelay
      if (catchUp && since) {
        // Writes committed while we were away; a minute of margin for transactions that began earlier.
        const missed = await client.query<{ key: string }>(`SELECT key FROM ${this.table} WHERE created_at >= $1::timestamptz - interval '1 minute' ORDER BY key`, [since])
        for (const row of missed.rows) this.deliver(row.key)
      }
    } catch (error) {
      cut(client)
      if (!catchUp) throw mapPostgresError(error, 'watch')
      this.schedule()
    }
  }

  /** Asks `client` for an answer every `heartbeatMs` while it is the one listening; one that does not come in time means it is gone. */
  private beat(client: pg.Client): void {
    clearInterval(this.heartbeat)
    let asking = false
    const timer = setInterval(() => {
      if (this.client !== client) return clearInterval(timer)
      if (asking) return
      asking = true
      const answered = client.query('SELECT 1').then(
        () => true,
        () => false
      )
      void settledWithin(answered, this.timing.heartbeatTimeoutMs)
        .then(async (settled) => settled && (await answered))
        .then((alive) => {
          asking = false
          if (!alive) this.lost(client)
        })
    }, this.timing.heartbeatMs)
    timer.unref?.()
    this.heartbeat = timer
  }

  private deliver(key: string) {
    try {
      this.onChange(key)
    } catch {
      // The listener's own failure must not stop the watch.
    }
  }

  private lost(client: pg.Client) {
    if (this.client !== client) return
    this.client = undefined
    clearInterval(this.heartbeat)
    client.removeAllListeners('notification')
    cut(client)
    this.schedule()
  }

  private schedule() {
    if (this.stopped || this.timer) return
    this.timer = setTimeout(() => {
      this.timer = undefined
      void this.connect(true)
    }, this.delay)
    this.timer.unref?.()
    this.delay = Math.min(this.delay * 2, 30_000)
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    clearInterval(this.heartbeat)
    const client = this.client
    this.client = undefined
    if (client) {
      client.removeAllListeners('notification')
      if (!(await settledWithin(client.end(), CLOSE_WAIT_MS))) cut(client)
    }
  }
}
