import { createHash } from 'node:crypto'
import { closeSync, openSync, readSync, rmSync, statSync, writeSync } from 'node:fs'
import type { SqliteDb } from '../store/database'
import type { Change } from './change-log'
import type { Hlc } from './hlc'

/**
 * A snapshot's messages as a SQLite database image (decision 86).
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
 * still points at them), `meta` (the messages' stamps and tombstones: sync_meta's columns) and
 * `messages_fts` / `messages_trigram` with their shadow tables. Nothing else of the data folder.
 */

/** The image travels in sealed chunks: one AES-GCM buffer and one put of a few MB each, not one of 100 MB. */
export const IMAGE_CHUNK = 8 * 1024 * 1024

/** What a snapshot says of its image (inside the sealed snapshot body, so it is authenticated). */
export interface ImageInfo {
  chunks: number
  bytes: number
  sha256: string
  /** Rows and stamps it holds (for progress and checks). */
  messages: number
  records: number
  /** The newest stamp in it: the reader's clock moves past it as a merge would. */
  newest: Hlc | null
}

const SCHEMA = 'sync_image'
/** The full-text indexes of messages copied with the image (their shadow tables, as FTS5 names them). */
const INDEXES = ['messages_fts', 'messages_trigram'] as const
/** An FTS5 table's shadow tables, as they exist in `schema` (which depend on the table's options). */
const shadowsOf = (db: SqliteDb, schema: string, index: string) =>
  (db.prepare(`SELECT name FROM ${schema}.sqlite_master WHERE type = 'table' AND name IN (?, ?, ?, ?, ?) ORDER BY name`).all(...['data', 'idx', 'docsize', 'config', 'content'].map((s) => `${index}_${s}`)) as Array<{ name: string }>).map((r) => r.name)

const sqlOf = (db: SqliteDb, schema: string, name: string) =>
  (db.prepare(`SELECT sql FROM ${schema}.sqlite_master WHERE name = ?`).get(name) as { sql: string } | undefined)?.sql
const columnsOf = (db: SqliteDb, schema: string, table: string) =>
  (db.prepare(`PRAGMA ${schema}.table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name)

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
export function writeImage(db: SqliteDb, file: string): Omit<ImageInfo, 'chunks' | 'bytes' | 'sha256'> {
  rmSync(file, { force: true })
  const pageSize = db.pragma('page_size', { simple: true }) as number
  return attached(db, file, () => {
    db.exec(`PRAGMA ${SCHEMA}.page_size = ${pageSize}; PRAGMA ${SCHEMA}.journal_mode = OFF; PRAGMA ${SCHEMA}.synchronous = OFF;`)
    return db.transaction(() => {
      // The table as it is here, without its references (the image holds no conversations).
      const table = sqlOf(db, 'main', 'messages')!
        .replace(/^CREATE TABLE "?messages"?/, `CREATE TABLE ${SCHEMA}.messages`)
        .replace(/\s+REFERENCES\s+\w+\s*\([^)]*\)(\s+ON\s+(DELETE|UPDATE)\s+(SET\s+NULL|SET\s+DEFAULT|CASCADE|RESTRICT|NO\s+ACTION))*/gi, '')
      // Its ids are indexed once the rows are in (a sorted build), not as each row arrives.
      const unique = /\bid TEXT NOT NULL UNIQUE\b/
      db.exec(table.replace(unique, 'id TEXT NOT NULL'))
      db.exec(`CREATE TABLE ${SCHEMA}.meta (key TEXT PRIMARY KEY, hlcs TEXT NOT NULL, hashes TEXT NOT NULL, deleted TEXT) WITHOUT ROWID`)
      db.exec(`INSERT INTO ${SCHEMA}.meta SELECT key, hlcs, hashes, deleted FROM main.sync_meta WHERE tbl = 'messages'`)
      const messages = db.prepare(`INSERT INTO ${SCHEMA}.messages SELECT r.* FROM main.messages r WHERE r.id IN (SELECT key FROM ${SCHEMA}.meta) ORDER BY r.seq`).run().changes
      if (unique.test(table)) db.exec(`CREATE UNIQUE INDEX ${SCHEMA}.messages_id ON messages(id)`)
      for (const index of INDEXES) {
        const create = sqlOf(db, 'main', index)
        if (!create) continue
        db.exec(create.replace(new RegExp(`^CREATE VIRTUAL TABLE "?${index}"?`), `CREATE VIRTUAL TABLE ${SCHEMA}.${index}`))
        for (const shadow of shadowsOf(db, 'main', index)) {
          db.exec(`DELETE FROM ${SCHEMA}.${shadow}`)
          db.exec(`INSERT INTO ${SCHEMA}.${shadow} SELECT * FROM main.${shadow}`)
        }
      }
      // Rows without stamps (a reply still streaming) stay out; the index copied above knew them:
      // take them out of it the way FTS5 is told of a deleted row of an external-content table.
      const unstamped = db.prepare(`SELECT * FROM main.messages WHERE id NOT IN (SELECT key FROM ${SCHEMA}.meta)`).all() as Array<Record<string, unknown>>
      for (const index of INDEXES) {
        const cols = columnsOf(db, SCHEMA, index)
        if (cols.length === 0 || unstamped.length === 0) continue
        const forget = db.prepare(`INSERT INTO ${SCHEMA}.${index}(${index}, rowid, ${cols.join(', ')}) VALUES ('delete', ?, ${cols.map(() => '?').join(', ')})`)
        for (const row of unstamped) forget.run(row.seq, ...cols.map((c) => row[c]))
      }
      const records = (db.prepare(`SELECT COUNT(*) AS n FROM ${SCHEMA}.meta`).get() as { n: number }).n
      const newest = (db.prepare(`SELECT MAX(max(COALESCE(deleted, ''), COALESCE((SELECT MAX(value) FROM json_each(hlcs)), ''))) AS h FROM ${SCHEMA}.meta`).get() as { h: string | null }).h
      return { messages, records, newest: newest || null }
    })()
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

/** Writes downloaded chunks to `file` in order and checks the whole against what the snapshot said. */
export class ImageFile {
  private fd: number | undefined
  private readonly digest = createHash('sha256')
  private bytes = 0

  constructor(readonly file: string) {
    rmSync(file, { force: true })
    this.fd = openSync(file, 'w', 0o600)
  }

  append(chunk: Buffer): void {
    this.digest.update(chunk)
    writeSync(this.fd!, chunk)
    this.bytes += chunk.length
  }

  /** Closes the file; true when it is the image the snapshot names. */
  finish(info: ImageInfo): boolean {
    this.close()
    return this.bytes === info.bytes && this.digest.digest('hex') === info.sha256
  }

  private close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }

  remove(): void {
    this.close()
    rmSync(this.file, { force: true })
  }
}

/**
 * Copies an image into a device that holds no messages: rows (with their `seq`), stamps and the
 * full-text indexes as they are. Returns the number of messages adopted, or undefined when the
 * image cannot be adopted whole here — the device holds messages or stamps of messages, the
 * table or an index is shaped differently, or a message's conversation is missing — and must be
 * merged record by record (`imageChanges`). `goneAfter`: where its tombstones were published
 * (the snapshot's covers), as a merge from the snapshot would record.
 */
export function adoptImage(db: SqliteDb, file: string, goneAfter: string): number | undefined {
  return attached(db, file, () => {
    const held = db.prepare(`SELECT (SELECT COUNT(*) FROM main.messages) + (SELECT COUNT(*) FROM main.sync_meta WHERE tbl = 'messages') AS n`).get() as { n: number }
    if (held.n > 0) return undefined
    const columns = columnsOf(db, 'main', 'messages')
    if (columns.join() !== columnsOf(db, SCHEMA, 'messages').join()) return undefined
    const strip = (sql: string | undefined, name: string) => sql?.replace(new RegExp(`^CREATE VIRTUAL TABLE "?(${SCHEMA}\\.)?${name}"?`), '')
    if (INDEXES.some((index) => strip(sqlOf(db, 'main', index), index) !== strip(sqlOf(db, SCHEMA, index), index) || shadowsOf(db, 'main', index).join() !== shadowsOf(db, SCHEMA, index).join())) return undefined
    const orphans = db.prepare(`SELECT 1 FROM ${SCHEMA}.messages r WHERE NOT EXISTS (SELECT 1 FROM main.conversations c WHERE c.id = r.conversation_id) LIMIT 1`).get()
    if (orphans) return undefined
    // Written once into the database file rather than into the write-ahead log and again at its
    // checkpoint: a rollback journal for this one transaction (the pages it adds need none; a
    // crash rolls back to the empty table). Stays in WAL when another connection is open.
    const journal = switchJournal(db, 'delete')
    try {
      return db.transaction(() => {
        // The table's triggers (index upkeep, change capture) stay out of a copy: the indexes come built, and what is adopted is not captured.
        const triggers = db.prepare(`SELECT name, sql FROM main.sqlite_master WHERE type = 'trigger' AND tbl_name = 'messages'`).all() as Array<{ name: string; sql: string }>
        for (const t of triggers) db.exec(`DROP TRIGGER main.${t.name}`)
        // Secondary indexes are built once from the sorted rows rather than grown row by row (about a third of the copy).
        const indexes = db.prepare(`SELECT name, sql FROM main.sqlite_master WHERE type = 'index' AND tbl_name = 'messages' AND sql IS NOT NULL`).all() as Array<{ name: string; sql: string }>
        for (const i of indexes) db.exec(`DROP INDEX main.${i.name}`)
        // A topic this device does not hold is left out, as a merge leaves it out (topics are not indexed).
        const select = columns.map((c) => (c === 'topic_id' ? `CASE WHEN r.topic_id IS NULL OR EXISTS (SELECT 1 FROM main.topics t WHERE t.id = r.topic_id) THEN r.topic_id END` : `r.${c}`))
        const adopted = db.prepare(`INSERT INTO main.messages (${columns.join(', ')}) SELECT ${select.join(', ')} FROM ${SCHEMA}.messages r ORDER BY r.seq`).run().changes
        for (const i of indexes) db.exec(i.sql)
        db.prepare(
          `INSERT INTO main.sync_meta (tbl, key, hlcs, hashes, deleted, dirty, gone_after)
           SELECT 'messages', key, hlcs, hashes, deleted, 0, CASE WHEN deleted IS NULL THEN NULL ELSE ? END FROM ${SCHEMA}.meta`
        ).run(goneAfter)
        for (const index of INDEXES)
          for (const shadow of shadowsOf(db, 'main', index)) {
            db.exec(`DELETE FROM main.${shadow}`)
            db.exec(`INSERT INTO main.${shadow} SELECT * FROM ${SCHEMA}.${shadow}`)
          }
        for (const t of triggers) db.exec(t.sql)
        return adopted
      })()
    } finally {
      if (journal) switchJournal(db, 'wal')
    }
  })
}

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
export function* imageChanges(db: SqliteDb, file: string, batch: number): Generator<Change[]> {
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
