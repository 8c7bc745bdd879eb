import type { Statement } from 'better-sqlite3'
import { createHash } from 'node:crypto'
import { sql } from 'kysely'
import type { SqliteDb, StoreDb } from '../store/database'
import { withMessageIndexDeferred } from '../store/message-index'
import type { SyncScope } from '../../shared/bridge/procedures/sync'
import { formatHlc, installStamp, isInstallStamp, parseHlc, type Hlc, type HybridClock } from './hlc'
import { isDeviceLocalSetting, SYNCED_TABLES, tableByName, type SyncedTable } from './tables'

type Value = string | number | null
type Row = Record<string, Value>

/**
 * One record's whole state as it travels: every field with its clock stamp (a `row` table has
 * the one field `*`), and the stamp of its deletion. States merge field by field and give the
 * same result in any order, any number of times: that is what lets a device start from a
 * snapshot, miss a segment, or read one twice and still converge.
 */
export interface Change {
  /** A synced table, or `api_keys` (keychain entries, see api-keys.ts). */
  t: SyncedTable['name'] | 'api_keys'
  k: string
  f?: Record<string, [Hlc, Value | Row]>
  d?: Hlc
  /**
   * For each field the sender edited since it last sent this record: the stamp that field had
   * when it did (what it saw); `{}` for a record new to the sender. A receiver whose own edit is
   * replaced while it holds another stamp there than the base changed it meanwhile: a conflict.
   * Absent from snapshots' records and from versions before it: no conflict is told then.
   */
  b?: Record<string, Hlc>
}

/**
 * Where a change was first published, as the smallest knowledge that implies it: `{ device:
 * segment }` for a segment, the covers of a snapshot. A device whose merged segments reach every
 * entry has seen the change; a tombstone every device has seen can be forgotten.
 */
export type Origin = Record<string, number>

export interface MergeResult {
  applied: number
  conflicts: number
  recovered: number
  parked: number
}

export interface MetaRow {
  tbl: string
  key: string
  hlcs: string
  hashes: string
  deleted: string | null
  dirty: number
  gone_after: string | null
  /** JSON: per field edited here since this record was last sent, the stamp it replaced (`Change.b`). */
  bases?: string | null
}

/** A change during a merge: the fields it wins (`mergeOne`), and those where it replaces an edit of this device's. */
type Merging = Change & { winners?: Record<string, Value | Row>; replaced?: Record<string, Hlc>; o?: Origin }

type ReplacedRow = { id: number; tbl: string; key: string; field: string; replaced: string; kept: string; kept_by: string; at: number }
/** An edit of this device's that a later one from another device replaced (`replacedEdits`). */
export interface ReplacedEdit {
  id: number
  table: SyncedTable['name']
  key: string
  field: string
  /** What the record is called now (a setting: its key); null when it is gone. */
  label: string | null
  replaced: Value
  kept: Value
  /** The device whose edit was kept (its id). */
  keptBy: string
  at: number
}

/** A value as the list shows it: a long text (a system prompt) cut, so the list stays small; bringing it back writes the whole. */
const preview = <T extends Value>(value: T): T => (typeof value === 'string' && value.length > REPLACED_PREVIEW ? (`${value.slice(0, REPLACED_PREVIEW)}…` as T) : value)
const REPLACED_PREVIEW = 500

/** What a record's unsent edits replaced, per field (`MetaRow.bases`); empty when none. */
const basesOf = (meta: MetaRow | undefined): Record<string, Hlc> => (meta?.bases ? (JSON.parse(meta.bases) as Record<string, Hlc>) : {})

/** The device that made a stamp (its id follows the time and the counter). */
const authorOf = (hlc: Hlc) => hlc.slice(20)

/** A record's times: they move with every edit of any field, so they never count as an edit of their own. */
const TIMES = new Set(['created_at', 'updated_at'])

/** How many replaced edits this device keeps for the user to look at (the newest). */
export const REPLACED_KEPT = 100

/** A change noted by the capture triggers: which record, and when. */
type Noted = { tbl: string; key: string; changed_at: number }

const hash = (value: unknown) => createHash('sha1').update(JSON.stringify(value) ?? 'undefined').digest('base64').slice(0, 16)
/**
 * The fields of a record every install creates (`installed` in tables.ts) that hold the values it
 * was created with, for its first stamp on this device. The times count as such while every other
 * field does: an untouched record. Undefined for any other record.
 */
function untouched(table: SyncedTable, key: string, row: Row): Set<string> | undefined {
  const installed = table.installed?.(key)
  if (!installed) return undefined
  const same = Object.keys(installed).filter((field) => row[field] === installed[field])
  if (same.length < Object.keys(installed).length) return new Set(same)
  return new Set(Object.keys(row).filter((field) => field !== table.pk))
}

/** The synced tables `scope` takes, by name. */
const scopeTables = (scope: SyncScope) => SYNCED_TABLES.filter((t) => scope[t.scope]).map((t) => t.name)
/** The later of two stamps (either may be missing). */
export const max = (a: Hlc | null | undefined, b: Hlc | null | undefined) => (!a ? (b ?? null) : !b ? a : a > b ? a : b)

/**
 * The statements a round runs for every record, on sync's tables and the fixed ones of
 * messages: built with kysely, prepared once (StoreDb.prepared: a build and compile per record
 * cost an upsert 55–75 µs against 7 µs). The SQL over a synced table named at run time stays in
 * `ChangeLog.sql` (docs/architecture.md, "Local data").
 */
function recordStatements(db: StoreDb) {
  const { q } = db
  return {
    meta: db.prepared((p: { tbl: string; key: string }) => q.selectFrom('sync_meta').selectAll().where('tbl', '=', p.tbl).where('key', '=', p.key)),
    writeMeta: db.prepared((p: { tbl: string; key: string; hlcs: string; hashes: string; deleted: string | null; dirty: number; gone_after: string | null }) =>
      q
        .insertInto('sync_meta')
        .values({ tbl: p.tbl, key: p.key, hlcs: p.hlcs, hashes: p.hashes, deleted: p.deleted, dirty: p.dirty, gone_after: p.gone_after })
        .onConflict((oc) =>
          oc.columns(['tbl', 'key']).doUpdateSet((eb) => ({
            hlcs: eb.ref('excluded.hlcs'),
            hashes: eb.ref('excluded.hashes'),
            deleted: eb.ref('excluded.deleted'),
            dirty: eb.fn<number>('max', ['dirty', eb.ref('excluded.dirty')]),
            gone_after: eb.ref('excluded.gone_after')
          }))
        )
    ),
    writeBases: db.prepared((p: { tbl: string; key: string; bases: string | null }) => q.updateTable('sync_meta').set({ bases: p.bases }).where('tbl', '=', p.tbl).where('key', '=', p.key)),
    /** Clean unless stamped again since it was read: its stamps and tombstone still as read. */
    sent: db.prepared((p: { published: string; tbl: string; key: string; hlcs: string; deleted: string | null }) =>
      q
        .updateTable('sync_meta')
        .set((eb) => ({ dirty: 0, bases: null, gone_after: eb.case().when('deleted', 'is', null).then(sql<string | null>`NULL`).else(eb.fn.coalesce('gone_after', eb.val(p.published))).end() }))
        .where('tbl', '=', p.tbl)
        .where('key', '=', p.key)
        .where('hlcs', '=', p.hlcs)
        .where('deleted', 'is', p.deleted)
    ),
    everything: db.prepared((p: { tbl: string }) => q.selectFrom('sync_meta').selectAll().where('tbl', '=', p.tbl)),
    forget: db.prepared((p: { tbl: string; key: string }) => q.deleteFrom('sync_meta').where('tbl', '=', p.tbl).where('key', '=', p.key).where('dirty', '=', 0)),
    outboxDone: db.prepared((p: { tbl: string; key: string; changed_at: number }) => q.deleteFrom('sync_outbox').where('tbl', '=', p.tbl).where('key', '=', p.key).where('changed_at', '=', p.changed_at)),
    outboxAt: db.prepared((p: { tbl: string; key: string }) => q.selectFrom('sync_outbox').select('changed_at').where('tbl', '=', p.tbl).where('key', '=', p.key)),
    park: db.prepared((p: { tbl: string; key: string; change: string }) => q.replaceInto('sync_parked').values({ tbl: p.tbl, key: p.key, change: p.change })),
    keepReplaced: db.prepared((p: { tbl: string; key: string; field: string; replaced: string; kept: string; kept_by: string; at: number }) =>
      q.insertInto('sync_replaced').values({ tbl: p.tbl, key: p.key, field: p.field, replaced: p.replaced, kept: p.kept, kept_by: p.kept_by, at: p.at })
    ),
    topic: db.prepared((p: { id: string }) => q.selectFrom('topics').select('id').where('id', '=', p.id)),
    message: db.prepared((p: { id: string }) => q.selectFrom('messages').select(['id', 'parent_id']).where('id', '=', p.id)),
    replies: db.prepared((p: { id: string }) => q.selectFrom('messages').select('id').where('parent_id', '=', p.id)),
    moveReply: db.prepared((p: { id: string; parent: string | null }) => q.updateTable('messages').set({ parent_id: p.parent }).where('id', '=', p.id))
  }
}

/**
 * The sync tables of one data folder: turns what the capture triggers noted into stamped
 * changes, reads them out for a segment, and merges other devices' changes in.
 */
export class ChangeLog {
  private readonly columns = new Map<string, string[]>()
  private readonly statements = new Map<string, Statement>()
  /** Per table (the same statements as `sql` keeps, found without building their text for every record). */
  private readonly rowStatements = new Map<string, Statement>()
  private readonly upsertStatements = new Map<string, Statement>()
  /** For the SQL over tables named at run time (`sql`), FTS upkeep and transactions. */
  private readonly db: SqliteDb
  private readonly q: ReturnType<typeof recordStatements>

  constructor(
    private readonly store: StoreDb,
    private readonly clock: HybridClock
  ) {
    this.db = store.sqlite
    this.q = recordStatements(store)
    for (const table of SYNCED_TABLES) {
      const all = (this.db.prepare(`PRAGMA table_info(${table.name})`).all() as Array<{ name: string }>).map((c) => c.name)
      this.columns.set(table.name, all.filter((c) => !table.skip?.includes(c)))
    }
  }

  /** A prepared statement, kept: a round runs the same few statements for every record. */
  private sql(text: string): Statement {
    let statement = this.statements.get(text)
    if (!statement) this.statements.set(text, (statement = this.db.prepare(text)))
    return statement
  }

  /**
   * Turns capture on and notes every existing row, so the first push carries what was there
   * before sync. A row whose values still match its stamps keeps them (set up again, only what
   * changed is stamped anew). Nothing captured when it changed, so a row is noted as changed when
   * its own `updated_at` says (never later than now), where its table has one: an edit made on
   * another device after it still wins, whichever device is set up last. Rows without one
   * (settings, files) count as changed now.
   */
  enable(): void {
    this.db.transaction(() => {
      this.store.runUnwatched(this.store.q.updateTable('sync_control').set({ enabled: 1 }).where('id', '=', 1))
      const now = Date.now()
      for (const table of SYNCED_TABLES) {
        const dated = this.columns.get(table.name)!.includes('updated_at')
        const when = dated ? 'MIN(COALESCE(updated_at, @now), @now)' : '@now'
        this.sql(`INSERT OR IGNORE INTO sync_outbox (tbl, key, changed_at) SELECT @table, ${table.pk}, ${when} FROM ${table.name}`).run({ table: table.name, now })
      }
    })()
  }

  /**
   * This device starts its history again in a store that holds none of it (another store, or
   * one it left under another device id): what it merged from the last one is read again or was
   * never there, its segments are numbered from 1, and every record it holds and every tombstone
   * goes there whole, with the stamps it has. They are the times the changes were made, so a
   * later change made elsewhere still wins over them (never stamped anew: that would make old
   * rows newer than deletions and edits made meanwhile). A record known but not held here (it
   * waited for its parent) is not this device's to send.
   */
  restartHistory(): void {
    this.db.transaction(() => {
      this.store.runUnwatched(this.store.q.updateTable('sync_control').set({ next_seq: 1 }).where('id', '=', 1))
      this.store.runUnwatched(this.store.q.deleteFrom('sync_seen'))
      this.store.runUnwatched(this.store.q.deleteFrom('sync_parked'))
      for (const table of SYNCED_TABLES)
        this.sql(
          `UPDATE sync_meta SET dirty = 1, gone_after = NULL
           WHERE tbl = ? AND (deleted IS NOT NULL OR EXISTS (SELECT 1 FROM ${table.name} r WHERE r.${table.pk} = sync_meta.key))`
        ).run(table.name)
      this.store.runUnwatched(this.store.q.updateTable('sync_meta').set({ dirty: 1, gone_after: null }).where('tbl', '=', 'api_keys'))
    })()
  }

  private row(table: SyncedTable, key: string): Row | undefined {
    const cols = this.columns.get(table.name)!
    let statement = this.rowStatements.get(table.name)
    if (!statement) this.rowStatements.set(table.name, (statement = this.sql(`SELECT ${cols.join(', ')} FROM ${table.name} WHERE ${table.pk} = ?`)))
    return statement.get(key) as Row | undefined
  }

  /** A record's stamps (sync_meta), whatever kind it is (a table's row or an API key). */
  meta(table: string, key: string): MetaRow | undefined {
    return this.q.meta.first({ tbl: table, key })
  }

  /** `goneAfter`: where the tombstone `deleted` was first published (null: not yet, or no tombstone). */
  writeMeta(table: string, key: string, hlcs: Record<string, Hlc>, hashes: Record<string, string>, deleted: Hlc | null, dirty: boolean, goneAfter: string | null): void {
    this.q.writeMeta.runUnwatched({ tbl: table, key, hlcs: JSON.stringify(hlcs), hashes: JSON.stringify(hashes), deleted, dirty: dirty ? 1 : 0, gone_after: deleted ? goneAfter : null })
  }

  /** A record's bases (`Change.b`): none left is NULL. */
  private writeBases(table: string, key: string, bases: Record<string, Hlc>): void {
    this.q.writeBases.runUnwatched({ tbl: table, key, bases: Object.keys(bases).length ? JSON.stringify(bases) : null })
  }

  private fieldsOf(table: SyncedTable, row: Row): Record<string, Value | Row> {
    if (table.mode === 'row') return { '*': row }
    const out: Record<string, Value> = {}
    for (const col of this.columns.get(table.name)!) if (col !== table.pk) out[col] = row[col] ?? null
    return out
  }

  /**
   * Local changes noted but not yet stamped, plus stamped ones not yet in the store. API-key
   * changes count only while API keys are synced (a change stamped before they were turned off
   * waits, unsent, until they are on again).
   */
  pending(withKeys = true): number {
    const { q } = this.store
    const outbox = this.store.first(q.selectFrom('sync_outbox').select((eb) => eb.fn.countAll<number>().as('n')).$if(!withKeys, (qb) => qb.where('tbl', '<>', 'api_keys')))!.n
    const dirty = this.store.first(q.selectFrom('sync_meta').select((eb) => eb.fn.countAll<number>().as('n')).where('dirty', '=', 1).$if(!withKeys, (qb) => qb.where('tbl', '<>', 'api_keys')))!.n
    return outbox + dirty
  }

  /**
   * Gives every noted change its clock stamp: each field whose value differs from the last
   * stamped one gets a new stamp, taken at the time the change was made (the trigger's clock,
   * read on this device's wall clock). A message still streaming waits until it is complete.
   */
  stamp(): number {
    return this.stampNoted(this.noted())
  }

  /** What the capture triggers noted, in the order the changes were made. */
  private noted(): Noted[] {
    return this.store.all(this.store.q.selectFrom('sync_outbox').select(['tbl', 'key', 'changed_at']).orderBy('changed_at'))
  }

  /**
   * `stamp`, a few thousand records at a time with the event loop let go between them: turning
   * sync on over a long history notes every row, and stamping 100,000 at once held the process
   * (every bridge call, every streaming reply) for ~3 s. The order is the changes' order, as in
   * `stamp` (a stamp is never below the last one taken, so a change stamped out of order would
   * take a later time than its own); a record changed again meanwhile waits for the next stamp.
   */
  async stampInSteps(step = 2_000): Promise<number> {
    const noted = this.noted()
    let stamped = 0
    for (let i = 0; i < noted.length; i += step) {
      if (i > 0) await new Promise((resolve) => setImmediate(resolve))
      stamped += this.stampNoted(noted.slice(i, i + step), true)
    }
    return stamped
  }

  /** `recheck`: the list was read before the event loop ran; a record noted again since is left for the next stamp. */
  private stampNoted(noted: readonly Noted[], recheck = false): number {
    let stamped = 0
    this.db.transaction(() => {
      const offset = this.clock.now() - Date.now()
      const done = { run: (tbl: string, key: string, changed_at: number) => this.q.outboxDone.runUnwatched({ tbl, key, changed_at }) }
      const current = { get: (tbl: string, key: string) => this.q.outboxAt.first({ tbl, key }) }
      for (const { tbl, key, changed_at } of noted) {
        // API keys are stamped from the keychain (api-keys.ts), not from a table.
        if (tbl === 'api_keys') continue
        if (recheck && current.get(tbl, key)?.changed_at !== changed_at) continue
        const table = tableByName.get(tbl as SyncedTable['name'])
        if (!table || (table.name === 'settings' && isDeviceLocalSetting(key))) {
          done.run(tbl, key, changed_at)
          continue
        }
        const row = this.row(table, key)
        if (row && table.name === 'messages' && row.status === 'streaming') continue
        const meta = this.meta(tbl, key)
        const hlcs = meta ? (JSON.parse(meta.hlcs) as Record<string, Hlc>) : {}
        const hashes = meta ? (JSON.parse(meta.hashes) as Record<string, string>) : {}
        this.after(hlcs, meta?.deleted)
        if (!row) {
          // Alive until now (its newest field newer than any tombstone: never deleted, or back after a delete).
          const newest = Object.values(hlcs).reduce<Hlc | null>((a, b) => max(a, b), null)
          if (meta && newest !== null && (!meta.deleted || newest > meta.deleted)) {
            // Published when its segment is written (sent).
            this.writeMeta(tbl, key, hlcs, hashes, this.clock.tick(changed_at + offset), true, null)
            stamped++
          }
        } else {
          let changed = false
          let at: Hlc | undefined
          const installed = meta ? undefined : untouched(table, key, row)
          const bases = basesOf(meta)
          let based = false
          for (const [field, value] of Object.entries(this.fieldsOf(table, row))) {
            const h = hash(value)
            if (hashes[field] === h && hlcs[field] && !(meta?.deleted && meta.deleted > hlcs[field])) continue
            // What this edit replaced, as this device saw it (kept across edits until the record is sent).
            if (hlcs[field] && !bases[field]) {
              bases[field] = hlcs[field]
              based = true
            }
            if (installed?.has(field)) hlcs[field] = installStamp(h)
            else hlcs[field] = at ??= this.clock.tick(changed_at + offset)
            hashes[field] = h
            changed = true
          }
          if (changed) {
            this.writeMeta(tbl, key, hlcs, hashes, meta?.deleted ?? null, true, meta?.gone_after ?? null)
            if (based) this.writeBases(tbl, key, bases)
            stamped++
          }
        }
        done.run(tbl, key, changed_at)
      }
    })()
    return stamped
  }

  /** Stamped changes not yet in the store, as whole record states, in dependency order. */
  outgoing(scope: SyncScope, limit: number): Change[] {
    const out: Change[] = []
    for (const table of SYNCED_TABLES) {
      if (!scope[table.scope]) continue
      const metas = this.store.all(this.store.q.selectFrom('sync_meta').selectAll().where('dirty', '=', 1).where('tbl', '=', table.name).limit(limit - out.length))
      for (const meta of metas) {
        const change = this.state(table, meta)
        this.readFrom.set(change, { hlcs: meta.hlcs, deleted: meta.deleted })
        out.push(change)
      }
      if (out.length >= limit) break
    }
    return out
  }

  private state(table: SyncedTable, meta: MetaRow): Change {
    const change: Change = { t: table.name, k: meta.key }
    if (meta.deleted) change.d = meta.deleted
    const row = this.row(table, meta.key)
    if (row) {
      const hlcs = JSON.parse(meta.hlcs) as Record<string, Hlc>
      const f: NonNullable<Change['f']> = {}
      for (const [field, value] of Object.entries(this.fieldsOf(table, row))) if (hlcs[field]) f[field] = [hlcs[field], value]
      change.f = f
      // A change of this device's (waiting to be sent) says what it saw: empty for a record new here.
      if (meta.dirty) change.b = basesOf(meta)
    }
    return change
  }

  /** Every record's state, for a snapshot (`except`: tables the snapshot carries another way, as its image). */
  *everything(scope: SyncScope, except: ReadonlySet<string> = new Set()): Generator<Change> {
    for (const table of SYNCED_TABLES) {
      if (!scope[table.scope] || except.has(table.name)) continue
      for (const meta of this.q.everything.iterate({ tbl: table.name })) yield this.state(table, meta)
    }
  }

  /** The stamps and tombstone (as stored) each change from `outgoing` was read from. */
  private readonly readFrom = new WeakMap<Change, { hlcs: string; deleted: string | null }>()

  /**
   * The changes went into the store (in the segment `origin` names): they are no longer pending
   * (unless stamped again since), and a deletion among them is published from there on.
   */
  /** The records of `scope` waiting to be sent, and all it holds stamps of (how long the backlog is, against the whole). */
  backlog(scope: SyncScope): { pending: number; total: number } {
    const tables = scopeTables(scope)
    if (tables.length === 0) return { pending: 0, total: 0 }
    const inScope = this.store.q.selectFrom('sync_meta').select((eb) => eb.fn.countAll<number>().as('n')).where('tbl', 'in', tables)
    const pending = this.store.first(inScope.where('dirty', '=', 1))!.n
    const total = pending === 0 ? 0 : this.store.first(inScope)!.n
    return { pending, total }
  }

  /**
   * Every record of `scope` waiting to be sent counts as published at `origin`: a snapshot holding
   * all of them has just been written (engine.ts, a long backlog). Only the round stamps, and
   * nothing stamps between the snapshot's reads and this, so no newer stamp is cleared unsent.
   */
  sentAll(scope: SyncScope, origin: Origin): number {
    const tables = scopeTables(scope)
    if (tables.length === 0) return 0
    return this.store.runUnwatched(
      this.store.q
        .updateTable('sync_meta')
        .set((eb) => ({ dirty: 0, bases: null, gone_after: eb.case().when('deleted', 'is', null).then(sql<string | null>`NULL`).else(eb.fn.coalesce('gone_after', eb.val(JSON.stringify(origin)))).end() }))
        .where('dirty', '=', 1)
        .where('tbl', 'in', tables)
    )
  }

  /**
   * Marks every record this device changed itself (a field, or its deletion, stamped here) as
   * waiting to be sent again, with the stamps it has: a segment of this device's was lost by the
   * store or refused elsewhere, and which of them it held is not known here. Returns how many.
   */
  resend(device: string): number {
    return this.store.runUnwatched(
      this.store.q
        .updateTable('sync_meta')
        .set({ dirty: 1 })
        .where('dirty', '=', 0)
        .where((eb) => eb.or([eb(eb.fn<number>('instr', ['hlcs', eb.val(`-${device}"`)]), '>', 0), eb(eb.fn<string>('substr', ['deleted', sql.lit(21)]), '=', device)]))
    )
  }

  sent(changes: readonly Change[], origin: Origin): void {
    const clear = { run: (published: string, tbl: string, key: string, hlcs: string, deleted: string | null) => this.q.sent.runUnwatched({ published, tbl, key, hlcs, deleted }) }
    const published = JSON.stringify(origin)
    this.db.transaction(() => {
      for (const change of changes) {
        // Read by `outgoing`: clean only if its stamps and tombstone are still what was read (one statement, no JSON).
        const from = this.readFrom.get(change)
        if (from) {
          clear.run(published, change.t, change.k, from.hlcs, from.deleted)
          continue
        }
        const meta = this.meta(change.t, change.k)
        if (!meta) continue
        const hlcs: Record<string, Hlc> = {}
        for (const [field, [h]] of Object.entries(change.f ?? {})) hlcs[field] = h
        const same = Object.keys(hlcs).length === 0 || JSON.stringify(hlcs) === JSON.stringify(Object.fromEntries(Object.keys(hlcs).map((f) => [f, (JSON.parse(meta.hlcs) as Record<string, Hlc>)[f]])))
        if (same && (change.d ?? null) === meta.deleted) clear.run(published, change.t, change.k, meta.hlcs, meta.deleted)
      }
    })()
  }

  /**
   * Merges other devices' record states in one transaction, with capture paused (what is
   * applied is not sent back). Local changes not yet stamped are stamped first, so a local edit
   * made a moment ago is weighed by its own stamp, never overwritten unseen. `origin`: where
   * these changes were published (the segment, or the snapshot's covers).
   */
  merge(changes: readonly Change[], scope: SyncScope, origin: Origin): MergeResult {
    const result: MergeResult = { applied: 0, conflicts: 0, recovered: 0, parked: 0 }
    this.stamp()
    // Messages' full-text indexes are filled once for a large batch, not row by row (a fresh
    // device takes tens of thousands at once: most of the time went there).
    withMessageIndexDeferred(this.db, () => {
      this.store.runUnwatched(this.store.q.updateTable('sync_control').set({ applying: 1 }).where('id', '=', 1))
      try {
        const order = new Map<string, number>(SYNCED_TABLES.map((t, i) => [t.name, i]))
        const parked = this.store.all(this.store.q.selectFrom('sync_parked').select('change'))
        this.store.runUnwatched(this.store.q.deleteFrom('sync_parked'))
        // A parked change keeps the origin it came with.
        const all = [...parked.map((p) => JSON.parse(p.change) as Change), ...changes.map((c) => ({ ...c, o: origin }))].filter((c) => {
          const table = tableByName.get(c.t as SyncedTable['name'])
          return table && scope[table.scope] && !(c.t === 'settings' && isDeviceLocalSetting(c.k))
        })
        for (const c of all) for (const [h] of Object.values(c.f ?? {})) this.clock.observe(h)
        for (const c of all) if (c.d) this.clock.observe(c.d)
        // One record may come twice in a batch (a parked copy and a newer change, or two segments):
        // each merge into its meta judges it alive or dead from the stamps seen so far, so only the
        // last verdict stands, applied once with every winning value and the newest field stamps.
        const verdicts = new Map<string, { change: Merging; alive: boolean }>()
        for (const change of all) {
          const alive = this.mergeOne(change, result)
          const id = `${change.t}\u0000${change.k}`
          const before = verdicts.get(id)?.change
          if (before) {
            const m = change as Merging
            m.winners = { ...before.winners, ...m.winners }
            m.replaced = { ...before.replaced, ...m.replaced }
            const fields = { ...before.f }
            for (const [field, entry] of Object.entries(m.f ?? {})) if (!fields[field] || fields[field]![0] < entry[0]) fields[field] = entry
            m.f = fields
            const d = max(before.d, m.d)
            if (d !== null && d !== m.d) Object.assign(m, { d, o: before.o })
          }
          verdicts.set(id, { change: change as Merging, alive })
        }
        const live: Change[] = []
        const dead: Change[] = []
        for (const { change, alive } of verdicts.values()) (alive ? live : dead).push(change)
        // Parents first when adding; children first when deleting.
        live.sort((a, b) => order.get(a.t)! - order.get(b.t)!)
        dead.sort((a, b) => order.get(b.t)! - order.get(a.t)!)
        for (const change of this.deletedParents(live, verdicts)) this.upsert(change, result)
        for (const change of live) this.upsert(change, result)
        for (const change of dead) this.remove(change, result)
      } finally {
        this.store.runUnwatched(this.store.q.updateTable('sync_control').set({ applying: 0 }).where('id', '=', 1))
      }
    }, changes.reduce((n, c) => (c.t === 'messages' ? n + 1 : n), 0))
    return result
  }

  /** Merges the stamps of one record into its meta; true when the record is alive after it. */
  private mergeOne(change: Change & { o?: Origin }, result: MergeResult): boolean {
    const meta = this.meta(change.t, change.k)
    const hlcs = meta ? (JSON.parse(meta.hlcs) as Record<string, Hlc>) : {}
    const hashes = meta ? (JSON.parse(meta.hashes) as Record<string, string>) : {}
    const winners: Record<string, Value | Row> = {}
    /** Fields where a later edit from elsewhere replaces this device's own, with the later stamp. */
    const replaced: Record<string, Hlc> = {}
    const bases = basesOf(meta)
    let basesChanged = false
    let conflict = false
    for (const [field, [h, value]] of Object.entries(change.f ?? {})) {
      const mine = hlcs[field]
      // A conflict is an edit of this device's replaced by a later one made without seeing it (the
      // sender's base for the field is not what this device holds). Not an edit made after seeing
      // ours, a value as an install created it, or a record's time (both sides move updated_at
      // when they change different fields).
      if (mine && mine >= h) continue
      const theirs = hash(value)
      // Counted on the device whose edit lost (the other counts nothing: none of its own was lost).
      const own = mine !== undefined && authorOf(mine) === this.clock.device && !TIMES.has(field) && !isInstallStamp(h)
      // No base at all: the sender made the record without seeing ours (a setting set on both).
      const unseen = change.b !== undefined && change.b[field] !== mine
      if (own && unseen && hashes[field] !== theirs) {
        conflict = true
        replaced[field] = h
      }
      if (bases[field]) {
        // This device's own edit of it, not yet sent, is replaced: a later edit here starts from theirs.
        delete bases[field]
        basesChanged = true
      }
      hlcs[field] = h
      hashes[field] = theirs
      winners[field] = value
    }
    if (conflict) result.conflicts++
    const deleted = max(meta?.deleted, change.d)
    const newest = Object.values(hlcs).reduce<Hlc | null>((a, b) => max(a, b), null)
    const alive = newest !== null && (!deleted || newest > deleted)
    // Known here but not held (it waited in sync_parked for its parent, or its row is gone): the
    // change carries the version the stamps name, so it is applied, not skipped as already seen.
    if (alive && Object.keys(winners).length === 0 && meta) {
      const table = tableByName.get(change.t as SyncedTable['name'])
      if (table && !this.row(table, change.k)) for (const [field, [h, value]] of Object.entries(change.f ?? {})) if (hlcs[field] === h) winners[field] = value
    }
    // The tombstone kept is theirs when it is newer than ours (or ours was not published yet).
    const theirs = change.d !== undefined && change.d === deleted && (change.d !== meta?.deleted || !meta?.gone_after) && change.o
    const goneAfter = theirs ? JSON.stringify(change.o) : (meta?.gone_after ?? null)
    this.writeMeta(change.t, change.k, hlcs, hashes, deleted, false, goneAfter)
    if (basesChanged) this.writeBases(change.t, change.k, bases)
    Object.assign(change as Merging, { winners, replaced })
    return alive
  }

  /**
   * Records deleted (in this batch, or here before it) that a live record of the batch hangs
   * off, not held here, whose change the batch carries whole: they are put back as it carries
   * them before their children, so `remove` weighs the deletion as it does any (decision 142): a
   * child its deleter never saw brings the parent back, stamped anew. Otherwise a device that
   * read the deletion before the child would keep the child parked and the parent gone, while
   * one that read them the other way round restores the parent, a round later than the others.
   */
  private deletedParents(live: readonly Merging[], verdicts: ReadonlyMap<string, { change: Merging; alive: boolean }>): Merging[] {
    const parents: Merging[] = []
    for (const change of live) {
      const table = tableByName.get(change.t as SyncedTable['name'])!
      if (!table.parent) continue
      const carried = table.mode === 'row' ? (change.f?.['*']?.[1] as Row | undefined)?.[table.parent.column] : (change.f?.[table.parent.column]?.[1] as Value | undefined)
      const parentId = carried ?? this.row(table, change.k)?.[table.parent.column]
      if (parentId === null || parentId === undefined) continue
      const parent = verdicts.get(`${table.parent.table}\u0000${String(parentId)}`)
      if (!parent || parent.alive || !parent.change.f || parents.includes(parent.change)) continue
      if (!this.row(tableByName.get(table.parent.table)!, String(parentId))) parents.push(parent.change)
    }
    return parents
  }

  private upsert(change: Merging, result: MergeResult): void {
    const table = tableByName.get(change.t as SyncedTable['name'])!
    const winners = change.winners ?? {}
    const current = this.row(table, change.k)
    if (current && Object.keys(winners).length === 0) return
    let row: Row
    if (table.mode === 'row') {
      const whole = (winners['*'] ?? current) as Row | undefined
      if (!whole) return
      row = { ...whole, [table.pk]: change.k }
    } else {
      row = { ...(current ?? {}) }
      // A record new here takes every field the change carries (a record always travels whole).
      for (const [field, [, value]] of Object.entries(change.f ?? {})) if (!current) row[field] = value as Value
      for (const [field, value] of Object.entries(winners)) row[field] = value as Value
      row[table.pk] = change.k
    }
    const cols = this.columns.get(table.name)!.filter((c) => c in row)
    if (table.parent) {
      const parentId = row[table.parent.column]
      const parentTable = tableByName.get(table.parent.table)!
      if (parentId !== null && parentId !== undefined && !this.sql(`SELECT 1 FROM ${parentTable.name} WHERE ${parentTable.pk} = ?`).get(parentId)) {
        // Its parent is deleted here, or has not arrived: kept aside and tried again each round.
        this.q.park.runUnwatched({ tbl: change.t, key: change.k, change: JSON.stringify({ t: change.t, k: change.k, f: change.f, d: change.d, o: change.o }) })
        result.parked++
        return
      }
    }
    if (table.name === 'messages' && row.topic_id && !this.q.topic.first({ id: String(row.topic_id) })) row.topic_id = null
    const moved = table.name === 'messages' && this.underDeleted(row)
    if (moved) row.parent_id = null
    const values = cols.map((c) => row[c] ?? null)
    const shape = `${table.name} ${cols.join(',')}`
    let statement = this.upsertStatements.get(shape)
    if (!statement) {
      const updates = cols.filter((c) => c !== table.pk).map((c) => `${c} = excluded.${c}`)
      statement = this.sql(`INSERT INTO ${table.name} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')}) ON CONFLICT (${table.pk}) DO ${updates.length ? `UPDATE SET ${updates.join(', ')}` : 'NOTHING'}`)
      this.upsertStatements.set(shape, statement)
    }
    statement.run(...values)
    result.applied++
    // Stamped as `reattachReplies` stamps a reply it moves, so every device moves it the same way.
    if (moved) this.stampMove(table, change.k)
    if (current && table.mode === 'fields') this.keepReplaced(table, change.k, current, winners, change.replaced ?? {})
  }

  /**
   * A reply that comes after the message it answers was deleted here (decision 143): the replies
   * held when a deletion comes move to the deleted message's parent (`reattachReplies`); one that
   * comes later would hang off a message that is gone, kept but never shown. Its parent's parent
   * is not known here any more, so it starts a branch of its own at the top, as a reply does
   * whose grandparent is not held.
   */
  private underDeleted(row: Row): boolean {
    const parent = row.parent_id
    if (parent === null || parent === undefined || this.sql('SELECT 1 FROM messages WHERE id = ?').get(parent)) return false
    const meta = this.meta('messages', String(parent))
    if (!meta?.deleted) return false
    const newest = Object.values(JSON.parse(meta.hlcs) as Record<string, Hlc>).reduce<Hlc | null>((a, b) => max(a, b), null)
    return newest === null || newest <= meta.deleted
  }

  /**
   * Keeps what a later edit from another device replaced here (its own value, not the times), the
   * newest REPLACED_KEPT of them: shown in Settings → Sync, where the user can bring one back.
   */
  private keepReplaced(table: SyncedTable, key: string, current: Row, winners: Record<string, Value | Row>, replaced: Record<string, Hlc>): void {
    const keep = { run: (tbl: string, key: string, field: string, replaced: string, kept: string, kept_by: string, at: number) => this.q.keepReplaced.runUnwatched({ tbl, key, field, replaced, kept, kept_by, at }) }
    let kept = 0
    for (const [field, stamp] of Object.entries(replaced)) {
      if (!(field in current) || !(field in winners)) continue
      keep.run(table.name, key, field, JSON.stringify(current[field] ?? null), JSON.stringify(winners[field] ?? null), authorOf(stamp), Date.now())
      kept++
    }
    if (kept) this.store.runUnwatched(this.store.q.deleteFrom('sync_replaced').where('id', '<=', (eb) => eb(eb.selectFrom('sync_replaced').select((eb) => eb.fn.max('id').as('newest')), '-', REPLACED_KEPT)))
  }

  private remove(change: Change & { o?: Origin }, result: MergeResult): void {
    const table = tableByName.get(change.t as SyncedTable['name'])!
    if (!this.row(table, change.k)) return
    const children = SYNCED_TABLES.filter((t) => t.parent?.table === table.name)
    // Children the deleting device never saw (no tombstone here): restore the parent, never drop them unseen.
    const unseen = children.some((child) =>
      this.sql(
          `SELECT 1 FROM ${child.name} c LEFT JOIN sync_meta m ON m.tbl = ? AND m.key = c.${child.pk}
           WHERE c.${child.parent!.column} = ? AND (m.key IS NULL OR m.deleted IS NULL OR m.deleted < (SELECT MAX(value) FROM json_each(m.hlcs))) LIMIT 1`
        )
        .get(child.name, change.k)
    )
    if (unseen) {
      this.restore(table, change.k)
      result.recovered++
      return
    }
    for (const child of children) this.markDeleted(child, `SELECT ${child.pk} AS key FROM ${child.name} WHERE ${child.parent!.column} = ?`, change.k, change.o)
    if (table.name === 'messages') this.reattachReplies(table, change.k)
    this.sql(`DELETE FROM ${table.name} WHERE ${table.pk} = ?`).run(change.k)
    result.applied++
  }

  /**
   * Replies to a message deleted elsewhere go to its parent, as a delete on this device does
   * (chat deleteMessage): otherwise a reply made here while another device deleted the message
   * would hang off a message that is gone, kept but never shown. Each is stamped anew, so every
   * device (the one that deleted it cannot know its parent any more) moves it the same way.
   */
  private reattachReplies(table: SyncedTable, id: string): void {
    const held = this.q.message.first({ id })?.parent_id ?? null
    // Its own parent not held here either (deleted here before the message itself came): its
    // parent is not known any more, so the replies start a branch of their own at the top.
    const parent = held !== null && !this.q.message.first({ id: held }) ? null : held
    const replies = this.q.replies.all({ id })
    for (const { id: reply } of replies) {
      this.q.moveReply.runUnwatched({ id: reply, parent })
      const meta = this.meta(table.name, reply)
      // Deleted too (in this merge, removed after it): moved here only, so its own replies go on
      // up to the nearest message kept; stamped, it would come back.
      const stamps = meta ? Object.values(JSON.parse(meta.hlcs) as Record<string, Hlc>) : []
      if (meta?.deleted && stamps.every((h) => h <= meta.deleted!)) continue
      // Every field stamped just past its own newest stamp, so every device moves it the same way.
      this.stampMove(table, reply)
    }
  }

  /** The edits later ones from other devices replaced here, newest first, each with what its record is called now (null: gone). */
  replacedEdits(): ReplacedEdit[] {
    const rows: ReplacedRow[] = this.store.all(this.store.q.selectFrom('sync_replaced').selectAll().orderBy('id', 'desc'))
    return rows.flatMap((r) => {
      const table = tableByName.get(r.tbl as SyncedTable['name'])
      if (!table) return []
      const name = table.name === 'settings' ? 'key' : table.name === 'agents' ? 'name' : 'title'
      const held = this.sql(`SELECT ${name} AS label FROM ${table.name} WHERE ${table.pk} = ?`).get(r.key) as { label: string } | undefined
      return [{ id: r.id, table: table.name, key: r.key, field: r.field, label: held ? preview(held.label) : null, replaced: preview(JSON.parse(r.replaced) as Value), kept: preview(JSON.parse(r.kept) as Value), keptBy: r.kept_by, at: r.at }]
    })
  }

  /**
   * Writes a replaced value back, as an edit made now on this device (captured, so it is stamped
   * and sent, and wins everywhere as the latest edit), and forgets it from the list. 'gone': its
   * record is not here any more (deleted since); 'dangling': the value names a record deleted
   * since (a conversation's agent); undefined: no such entry.
   */
  bringBack(id: number): { table: SyncedTable['name'] } | 'gone' | 'dangling' | undefined {
    const r: ReplacedRow | undefined = this.store.first(this.store.q.selectFrom('sync_replaced').selectAll().where('id', '=', id))
    const table = r && tableByName.get(r.tbl as SyncedTable['name'])
    // The field came from another device's change: only a column of this table is ever written.
    if (!r || !table || table.mode !== 'fields' || r.field === table.pk || !this.columns.get(table.name)!.includes(r.field)) return undefined
    if (!this.row(table, r.key)) return 'gone'
    const touch = r.field !== 'updated_at' && this.columns.get(table.name)!.includes('updated_at') ? ', updated_at = @now' : ''
    try {
      this.db.transaction(() => {
        this.sql(`UPDATE ${table.name} SET ${r.field} = @value${touch} WHERE ${table.pk} = @key`).run({ value: JSON.parse(r.replaced) as Value, key: r.key, ...(touch ? { now: Date.now() } : {}) })
        this.store.runUnwatched(this.store.q.deleteFrom('sync_replaced').where('id', '=', id))
      })()
    } catch (error) {
      // A reference (a conversation's agent) to a record deleted since.
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return 'dangling'
      throw error
    }
    return { table: table.name }
  }

  /** Rows removed by a cascade carry a tombstone too, so a later copy of them does not come back. */
  private markDeleted(table: SyncedTable, select: string, parent: string, origin: Origin | undefined): void {
    for (const { key } of this.sql(select).all(parent) as Array<{ key: string }>) {
      const meta = this.meta(table.name, key)
      if (meta?.deleted) continue
      const hlcs = meta ? (JSON.parse(meta.hlcs) as Record<string, Hlc>) : {}
      this.after(hlcs, null)
      this.writeMeta(table.name, key, hlcs, meta ? (JSON.parse(meta.hashes) as Record<string, string>) : {}, this.clock.tick(), false, origin ? JSON.stringify(origin) : null)
    }
  }

  /**
   * The clock moves past a record's stamps before it stamps a change of it (decision 141): the
   * change then wins over what it replaces even where the clock forgot them (it starts from zero
   * when the app starts) and the wall clock runs behind the one that made them.
   */
  private after(hlcs: Record<string, Hlc>, deleted: Hlc | null | undefined): void {
    for (const h of Object.values(hlcs)) this.clock.observe(h)
    if (deleted) this.clock.observe(deleted)
  }

  /**
   * A reply moved off a deleted message (decision 143): every field stamped just past the
   * record's own newest stamp, not now. Every device that moves it computes the same stamp, so all
   * agree; and a deletion of the reply made after it was written (on a device this one has not
   * heard from yet) stays newer than the move and wins. Stamped now, the move — no one's edit —
   * beat that deletion and brought the reply back everywhere (simulation seed 858).
   */
  private stampMove(table: SyncedTable, key: string): void {
    const meta = this.meta(table.name, key)
    const stamps = meta ? Object.values(JSON.parse(meta.hlcs) as Record<string, Hlc>) : []
    const newest = stamps.reduce<Hlc | null>((a, b) => max(a, b), null)
    if (!newest) return this.restore(table, key)
    const { ms, counter, device } = parseHlc(newest)
    // The next stamp after it (the counter has five digits: past them, the next millisecond).
    const at = counter < 99_999 ? formatHlc(ms, counter + 1, device) : formatHlc(ms + 1, 0, device)
    this.clock.observe(at)
    this.stampEveryField(table, key, meta, at)
  }

  /** Brings a deleted record back with every field stamped now, so every device restores it. */
  private restore(table: SyncedTable, key: string): void {
    const meta = this.meta(table.name, key)
    if (meta) this.after(JSON.parse(meta.hlcs) as Record<string, Hlc>, meta.deleted)
    this.stampEveryField(table, key, meta, this.clock.tick())
  }

  /** Every field of a record held here stamped `at` (waiting to be sent), its tombstone and origin kept. */
  private stampEveryField(table: SyncedTable, key: string, meta: ReturnType<ChangeLog['meta']>, at: Hlc): void {
    const row = this.row(table, key)!
    const hlcs: Record<string, Hlc> = {}
    const hashes: Record<string, string> = {}
    for (const [field, value] of Object.entries(this.fieldsOf(table, row))) {
      hlcs[field] = at
      hashes[field] = hash(value)
    }
    this.writeMeta(table.name, key, hlcs, hashes, meta?.deleted ?? null, true, meta?.gone_after ?? null)
  }

  /**
   * Forgets the tombstones every device has seen: a deleted record whose deletion was published
   * where each device's merged segments reach (`seen` of every device record in the store, this
   * one's own included). Only settled ones: not pending, the record not back. Returns how many.
   */
  collect(devices: ReadonlyArray<{ id: string; seen: Record<string, number> }>): number {
    let collected = 0
    const forget = { run: (tbl: string, key: string) => ({ changes: this.q.forget.runUnwatched({ tbl, key }) }) }
    this.db.transaction(() => {
      // API keys have no table here: a stamp no newer than the deletion is what says the key is gone.
      for (const table of [...SYNCED_TABLES, { name: 'api_keys', pk: '' }]) {
        const tombstones = this.sql(
            `SELECT m.key, m.hlcs, m.deleted, m.gone_after FROM sync_meta m
             WHERE m.tbl = ? AND m.deleted IS NOT NULL AND m.gone_after IS NOT NULL AND m.dirty = 0
               ${table.pk ? `AND NOT EXISTS (SELECT 1 FROM ${table.name} r WHERE r.${table.pk} = m.key)` : ''}`
          )
          .all(table.name) as Array<{ key: string; hlcs: string; deleted: string; gone_after: string }>
        for (const t of tombstones) {
          const newest = Object.values(JSON.parse(t.hlcs) as Record<string, Hlc>).reduce<Hlc | null>((a, b) => max(a, b), null)
          if (newest !== null && newest > t.deleted) continue
          const origin = JSON.parse(t.gone_after) as Origin
          const everyone = devices.every((d) => Object.entries(origin).every(([device, seq]) => device === d.id || (d.seen[device] ?? 0) >= seq))
          if (everyone) collected += forget.run(table.name, t.key).changes
        }
      }
    })()
    return collected
  }

  seen(): Map<string, number> {
    return new Map(this.store.all(this.store.q.selectFrom('sync_seen').select(['device', 'seq'])).map((r) => [r.device, r.seq]))
  }

  setSeen(device: string, seq: number): void {
    this.store.runUnwatched(
      this.store.q
        .insertInto('sync_seen')
        .values({ device, seq })
        .onConflict((oc) => oc.column('device').doUpdateSet((eb) => ({ seq: eb.fn<number>('max', ['seq', eb.ref('excluded.seq')]) })))
    )
  }
}
