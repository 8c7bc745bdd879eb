import { createHash } from 'node:crypto'
import { closeSync, openSync, readSync, rmSync, statSync, write } from 'node:fs'
import { sql } from 'kysely'
import type { SqliteDb, StoreDb } from '../store/database'
import type { MessagesTable } from '../store/schema'
import type { Change } from './change-log'
import type { Hlc } from './hlc'

/**
 * A snapshot's messages as a SQLite database image (decisions 86 and 87).
 *
 * Merging 100,000 messages record by record costs a fresh device seconds of row inserts, index
 * fills and stamp bookkeeping (docs/sync.md, "First sync"). The compacting device therefore
 * writes its messages, their stamps and the two full-text indexes already built into a small
 * database file; a device that holds no messages adopts it with a handful of `INSERT … SELECT`
 * statements (the indexes' shadow tables copied as they are, no rebuild). Any other device — one
 * that holds messages of its own, or whose schema differs — reads the same image as record
 * states and merges them like a segment's, so the result is the same either way.
 *
 * The image holds: `messages` (the rows that have stamps, with their `seq`, so the copied index
 * still points at them; the table and its indexes shaped exactly as the writer's, so SQLite copies
 * them as they are), `meta` (the messages' stamps and tombstones: sync_meta's columns) and
 * `messages_fts` / `messages_trigram` with their shadow tables. Nothing else of the data folder.
 */

/** The image travels in sealed chunks: one AES-GCM buffer and one put of a few MB each, not one of 100 MB. */
export const IMAGE_CHUNK = 8 * 1024 * 1024

/** What a snapshot says of its image (inside the sealed snapshot body, so it is authenticated). */
export interface ImageInfo {
  chunks: number
  bytes: number
  /** Of the whole file: what readers before `tags` check. */
  sha256: string
  /**
   * Each sealed chunk's GCM tag (its last 16 bytes, base64). A chunk that opens under the key and
   * carries the tag listed here is this write's own, so a reader need not also hash the whole
   * file: the check costs nothing beyond the decryption it does anyway.
   */
  tags?: string[]
  /** Rows and stamps it holds (for progress and checks). */
  messages: number
  records: number
  /** The newest stamp in it: the reader's clock moves past it as a merge would. */
  newest: Hlc | null
}

const SCHEMA = 'sync_image'
/** The image's two tables, as kysely reaches them while the image is attached (its indexes' shadow tables are named at run time: raw SQL). */
type ImageTables = {
  'sync_image.messages': MessagesTable
  /** sync_meta's columns for messages. */
  'sync_image.meta': { key: string; hlcs: string; hashes: string; deleted: string | null }
}
const withImage = (db: StoreDb) => db.q.withTables<ImageTables>()
/** The full-text indexes of messages copied with the image (their shadow tables, as FTS5 names them). */
const INDEXES = ['messages_fts', 'messages_trigram'] as const
/** An FTS5 table's shadow tables, as they exist in `schema` (which depend on the table's options). */
const shadowsOf = (db: SqliteDb, schema: string, index: string) =>
  (db.prepare(`SELECT name FROM ${schema}.sqlite_master WHERE type = 'table' AND name IN (?, ?, ?, ?, ?) ORDER BY name`).all(...['data', 'idx', 'docsize', 'config', 'content'].map((s) => `${index}_${s}`)) as Array<{ name: string }>).map((r) => r.name)

const sqlOf = (db: SqliteDb, schema: string, name: string) =>
  (db.prepare(`SELECT sql FROM ${schema}.sqlite_master WHERE name = ?`).get(name) as { sql: string } | undefined)?.sql
const columnsOf = (db: SqliteDb, schema: string, table: string) =>
  (db.prepare(`PRAGMA ${schema}.table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name)

/** The indexes on messages a schema declares itself (its UNIQUE constraint's index is part of the table). */
const secondaryIndexes = (db: SqliteDb, schema: string) =>
  db.prepare(`SELECT name, sql FROM ${schema}.sqlite_master WHERE type = 'index' AND tbl_name = 'messages' AND sql IS NOT NULL ORDER BY name`).all() as Array<{ name: string; sql: string }>

/** Runs `work` with `file` attached as the image schema (defensive mode off: FTS5 shadow tables are written as tables). */
function attached<T>(db: SqliteDb, file: string, work: () => T): T {
  db.prepare(`ATTACH ? AS ${SCHEMA}`).run(file)
  db.unsafeMode(true)
  try {
    return work()
  } finally {
    db.unsafeMode(false)
    db.exec(`DETACH ${SCHEMA}`)
  }
}

/**
 * Writes the messages of `db` (those with stamps) into a new image file at `file`; returns the
 * number of rows and records and the newest stamp. Synchronous and consistent (one read
 * transaction); the caller seals and uploads the file.
 */
export function writeImage(store: StoreDb, file: string): Omit<ImageInfo, 'chunks' | 'bytes' | 'sha256'> {
  const db = store.sqlite
  const image = withImage(store)
  rmSync(file, { force: true })
  const pageSize = db.pragma('page_size', { simple: true }) as number
  return attached(db, file, () => {
    db.exec(`PRAGMA ${SCHEMA}.page_size = ${pageSize}; PRAGMA ${SCHEMA}.journal_mode = OFF; PRAGMA ${SCHEMA}.synchronous = OFF;`)
    return store.transaction(() => {
      // The table and its indexes as they are here, without its references (the image holds no
      // conversations): the same shape on both sides is what lets SQLite copy rows and index
      // entries as they are, in order (its transfer optimisation), here and when a device adopts it.
      const table = sqlOf(db, 'main', 'messages')!
        .replace(/^CREATE TABLE "?messages"?/, `CREATE TABLE ${SCHEMA}.messages`)
        .replace(/\s+REFERENCES\s+\w+\s*\([^)]*\)(\s+ON\s+(DELETE|UPDATE)\s+(SET\s+NULL|SET\s+DEFAULT|CASCADE|RESTRICT|NO\s+ACTION))*/gi, '')
      db.exec(table)
      for (const index of secondaryIndexes(db, 'main')) db.exec(index.sql.replace(/^CREATE (UNIQUE )?INDEX "?(\w+)"?/, `CREATE $1INDEX ${SCHEMA}.$2`))
      db.exec(`CREATE TABLE ${SCHEMA}.meta (key TEXT PRIMARY KEY, hlcs TEXT NOT NULL, hashes TEXT NOT NULL, deleted TEXT) WITHOUT ROWID`)
      store.runUnwatched(
        image
          .insertInto('sync_image.meta')
          .columns(['key', 'hlcs', 'hashes', 'deleted'])
          .expression(image.selectFrom('sync_meta').select(['key', 'hlcs', 'hashes', 'deleted']).where('tbl', '=', 'messages'))
      )
      // Every row, copied as it is (no WHERE: a condition would make SQLite decode and re-encode each one)…
      db.exec(`INSERT INTO ${SCHEMA}.messages SELECT * FROM main.messages`)
      // …then the few without stamps (a reply still streaming) taken out again, found through the ids' index.
      const unstamped: Array<Record<string, unknown>> = store.all(
        image
          .selectFrom('messages')
          .selectAll()
          .where('seq', 'in', (eb) => eb.selectFrom('messages').select('seq').where('id', 'not in', (eb) => eb.selectFrom('sync_image.meta').select('key')))
      )
      for (const row of unstamped) store.runUnwatched(image.deleteFrom('sync_image.messages').where('seq', '=', row.seq as number))
      const messages = store.first(image.selectFrom('sync_image.messages').select((eb) => eb.fn.countAll<number>().as('n')))!.n
      for (const index of INDEXES) {
        const create = sqlOf(db, 'main', index)
        if (!create) continue
        db.exec(create.replace(new RegExp(`^CREATE VIRTUAL TABLE "?${index}"?`), `CREATE VIRTUAL TABLE ${SCHEMA}.${index}`))
        for (const shadow of shadowsOf(db, 'main', index)) {
          db.exec(`DELETE FROM ${SCHEMA}.${shadow}`)
          db.exec(`INSERT INTO ${SCHEMA}.${shadow} SELECT * FROM main.${shadow}`)
        }
      }
      // The index copied above knew the rows without stamps: take them out of it the way FTS5 is
      // told of a deleted row of an external-content table.
      for (const index of INDEXES) {
        const cols = columnsOf(db, SCHEMA, index)
        if (cols.length === 0 || unstamped.length === 0) continue
        const forget = db.prepare(`INSERT INTO ${SCHEMA}.${index}(${index}, rowid, ${cols.join(', ')}) VALUES ('delete', ?, ${cols.map(() => '?').join(', ')})`)
        for (const row of unstamped) forget.run(row.seq, ...cols.map((c) => row[c]))
      }
      const records = store.first(image.selectFrom('sync_image.meta').select((eb) => eb.fn.countAll<number>().as('n')))!.n
      const newest = (db.prepare(`SELECT MAX(max(COALESCE(deleted, ''), COALESCE((SELECT MAX(value) FROM json_each(hlcs)), ''))) AS h FROM ${SCHEMA}.meta`).get() as { h: string | null }).h
      return { messages, records, newest: newest || null }
    })
  })
}

/** Reads an image file in chunks of `size` bytes (for sealing one at a time) and its sha256. */
export function* chunksOf(file: string, size = IMAGE_CHUNK): Generator<Buffer, { bytes: number; sha256: string }> {
  const bytes = statSync(file).size
  const digest = createHash('sha256')
  const fd = openSync(file, 'r')
  try {
    for (let at = 0; at < bytes; at += size) {
      const chunk = Buffer.allocUnsafe(Math.min(size, bytes - at))
      readSync(fd, chunk, 0, chunk.length, at)
      digest.update(chunk)
      yield chunk
    }
  } finally {
    closeSync(fd)
  }
  return { bytes, sha256: digest.digest('hex') }
}

/**
 * Writes downloaded chunks to `file` in order and checks the whole against what the snapshot said.
 * Each chunk is hashed here and written by the thread pool while the next one is fetched and
 * opened; one write is in flight at a time, so memory stays at a chunk or two.
 */
export class ImageFile {
  private fd: number | undefined
  /** Absent when the chunks were checked against the snapshot's tags instead. */
  private readonly digest
  private bytes = 0
  private writing: Promise<void> = Promise.resolve()

  constructor(
    readonly file: string,
    hash = true
  ) {
    this.digest = hash ? createHash('sha256') : undefined
    rmSync(file, { force: true })
    this.fd = openSync(file, 'w', 0o600)
  }

  /** Takes `chunk`; resolves once the chunk before it is written, so that one's buffer may be reused (`chunk`'s after the next append). */
  async append(chunk: Buffer): Promise<void> {
    this.digest?.update(chunk)
    const at = this.bytes
    this.bytes += chunk.length
    await this.writing
    const fd = this.fd!
    this.writing = new Promise((resolve, reject) => writeAll(fd, chunk, at, (error) => (error ? reject(error) : resolve())))
    // Surfaces at the next append or at finish, not as an unhandled rejection meanwhile.
    this.writing.catch(() => undefined)
  }

  /** Closes the file once written; true when it is the image the snapshot names. */
  async finish(info: ImageInfo): Promise<boolean> {
    await this.writing
    this.close()
    return this.bytes === info.bytes && (!this.digest || this.digest.digest('hex') === info.sha256)
  }

  private close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }

  /** Removes the file (after any write still in flight). */
  async remove(): Promise<void> {
    await this.writing.catch(() => undefined)
    this.close()
    rmSync(this.file, { force: true })
  }
}

/** Writes all of `chunk` at `position` (a write may take less than asked). */
function writeAll(fd: number, chunk: Buffer, position: number, done: (error: Error | null) => void): void {
  write(fd, chunk, 0, chunk.length, position, (error, written) => {
    if (error) done(error)
    else if (written < chunk.length) writeAll(fd, chunk.subarray(written), position + written, done)
    else done(null)
  })
}

/**
 * Copies an image into a device that holds no messages: rows (with their `seq`), stamps and the
 * full-text indexes as they are. Returns the number of messages adopted, or undefined when the
 * image cannot be adopted whole here — the device holds messages or stamps of messages, the
 * table or an index is shaped differently, or a message's conversation is missing — and must be
 * merged record by record (`imageChanges`). `goneAfter`: where its tombstones were published
 * (the snapshot's covers), as a merge from the snapshot would record.
 */
export function adoptImage(store: StoreDb, file: string, goneAfter: string): number | undefined {
  const db = store.sqlite
  const image = withImage(store)
  return attached(db, file, () => {
    const held = store.first(
      image.selectNoFrom((eb) =>
        eb(eb.selectFrom('messages').select(eb.fn.countAll<number>().as('n')), '+', eb.selectFrom('sync_meta').select(eb.fn.countAll<number>().as('n')).where('tbl', '=', 'messages')).$notNull().as('n')
      )
    )!
    if (held.n > 0) return undefined
    const columns = columnsOf(db, 'main', 'messages')
    if (columns.join() !== columnsOf(db, SCHEMA, 'messages').join()) return undefined
    const strip = (sql: string | undefined, name: string) => sql?.replace(new RegExp(`^CREATE VIRTUAL TABLE "?(${SCHEMA}\\.)?${name}"?`), '')
    if (INDEXES.some((index) => strip(sqlOf(db, 'main', index), index) !== strip(sqlOf(db, SCHEMA, index), index) || shadowsOf(db, 'main', index).join() !== shadowsOf(db, SCHEMA, index).join())) return undefined
    // Every message's conversation is here (the snapshot's records came first): read from the image's own index on them.
    const orphans = store.first(
      image
        .selectFrom((eb) => eb.selectFrom('sync_image.messages').select('conversation_id as c').distinct().as('used'))
        .select(sql.lit(1).as('one'))
        .where('c', 'not in', (eb) => eb.selectFrom('conversations').select('id'))
        .limit(1)
    )
    if (orphans) return undefined
    // Written once into the database file rather than into the write-ahead log and again at its
    // checkpoint: a rollback journal for this one transaction (the pages it adds need none; a
    // crash rolls back to the empty table). Stays in WAL when another connection is open.
    const journal = switchJournal(db, 'delete')
    // SQLite copies rows and index entries as they are (its transfer optimisation) only into a table
    // without foreign keys being enforced: conversations are checked above, topics below. The
    // pragma is a no-op inside a transaction; the copy is then slower, and the same.
    const keys = db.pragma('foreign_keys', { simple: true }) === 1
    if (keys) db.pragma('foreign_keys = OFF')
    try {
      return store.transaction(() => {
        // The table's triggers (index upkeep, change capture) stay out of a copy: the indexes come built, and what is adopted is not captured.
        const triggers = db.prepare(`SELECT name, sql FROM main.sqlite_master WHERE type = 'trigger' AND tbl_name = 'messages'`).all() as Array<{ name: string; sql: string }>
        for (const t of triggers) db.exec(`DROP TRIGGER main.${t.name}`)
        // Indexes the image holds in the same shape are copied with the rows; any other (an image
        // from an older version) is set aside and built once from the rows rather than grown row by row.
        const theirs = new Set(secondaryIndexes(db, SCHEMA).map((i) => unqualified(i.sql)))
        const rebuilt = secondaryIndexes(db, 'main').filter((i) => !theirs.has(unqualified(i.sql)))
        for (const i of rebuilt) db.exec(`DROP INDEX main.${i.name}`)
        // No columns named, no condition: the form SQLite copies rows and index entries as they are.
        const adopted = store.runUnwatched(image.insertInto('messages').expression(image.selectFrom('sync_image.messages').selectAll()))
        // A topic this device does not hold is left out, as a merge leaves it out.
        store.runUnwatched(
          image
            .updateTable('messages')
            .set({ topic_id: null })
            .where('topic_id', 'is not', null)
            .where('topic_id', 'not in', (eb) => eb.selectFrom('topics').select('id'))
        )
        for (const i of rebuilt) db.exec(i.sql)
        store.runUnwatched(
          image
            .insertInto('sync_meta')
            .columns(['tbl', 'key', 'hlcs', 'hashes', 'deleted', 'dirty', 'gone_after'])
            .expression((eb) =>
              eb
                .selectFrom('sync_image.meta')
                .select((eb) => [
                  sql.lit('messages').as('tbl'),
                  'key',
                  'hlcs',
                  'hashes',
                  'deleted',
                  sql.lit(0).as('dirty'),
                  eb.case().when('deleted', 'is', null).then(sql<string | null>`NULL`).else(goneAfter).end().as('gone_after')
                ])
            )
        )
        for (const index of INDEXES)
          for (const shadow of shadowsOf(db, 'main', index)) {
            db.exec(`DELETE FROM main.${shadow}`)
            db.exec(`INSERT INTO main.${shadow} SELECT * FROM ${SCHEMA}.${shadow}`)
          }
        for (const t of triggers) db.exec(t.sql)
        return adopted
      })
    } finally {
      if (keys) db.pragma('foreign_keys = ON')
      if (journal) switchJournal(db, 'wal')
    }
  })
}

/** An index's SQL without the schema its name may carry. */
const unqualified = (sql: string) => sql.replace(/^CREATE (UNIQUE )?INDEX ("?\w+"?\.)?/, 'CREATE $1INDEX ')

/** Sets the main database's journal mode; true when it changed (another open connection keeps WAL in place). */
function switchJournal(db: SqliteDb, mode: 'delete' | 'wal'): boolean {
  try {
    return db.pragma(`main.journal_mode = ${mode}`, { simple: true }) === mode
  } catch {
    return false
  }
}

/**
 * The image's records as record states (what a snapshot body would have carried), in batches,
 * for a device that cannot adopt it whole. Only the columns this device knows travel.
 */
export function* imageChanges(store: StoreDb, file: string, batch: number): Generator<Change[]> {
  const db = store.sqlite
  const columns = columnsOf(db, 'main', 'messages').filter((c) => c !== 'seq')
  db.prepare(`ATTACH ? AS ${SCHEMA}`).run(file)
  try {
    const present = new Set(columnsOf(db, SCHEMA, 'messages'))
    const select = columns.map((c) => (present.has(c) ? `r.${c}` : `NULL AS ${c}`))
    const page = db.prepare(
      `SELECT m.key AS _key, m.hlcs AS _hlcs, m.deleted AS _deleted, r.id IS NOT NULL AS _held, ${select.join(', ')}
       FROM ${SCHEMA}.meta m LEFT JOIN ${SCHEMA}.messages r ON r.id = m.key WHERE m.key > ? ORDER BY m.key LIMIT ?`
    )
    let after = ''
    for (;;) {
      const rows = page.all(after, batch) as Array<Record<string, string | number | null>>
      if (rows.length === 0) return
      after = String(rows[rows.length - 1]!._key)
      yield rows.map((r) => {
        const change: Change = { t: 'messages', k: String(r._key) }
        if (r._deleted) change.d = String(r._deleted)
        const stamp = (JSON.parse(String(r._hlcs)) as Record<string, Hlc>)['*']
        if (r._held && stamp) change.f = { '*': [stamp, Object.fromEntries(columns.map((c) => [c, r[c] ?? null]))] }
        return change
      })
    }
  } finally {
    db.exec(`DETACH ${SCHEMA}`)
  }
}
