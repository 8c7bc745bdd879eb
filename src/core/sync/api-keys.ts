import { createHmac } from 'node:crypto'
import type { StoreDb } from '../store/database'
import { max, type Change, type ChangeLog, type MetaRow, type Origin } from './change-log'
import type { Hlc, HybridClock } from './hlc'

/** The change-log name of API keys: they live in the keychain, never in a table. */
export const API_KEYS = 'api_keys'

/** What API-key sync needs of the keychain and of the providers. */
export interface ApiKeySource {
  /** Every keychain name that holds a provider credential (each provider's key, its credential fields). */
  names(): string[]
  isKey(name: string): boolean
  read(name: string): Promise<string | undefined>
  /** Writes (or, with undefined, removes) a key that came from another device. */
  write(name: string, value: string | undefined): Promise<void>
}

/** Notes a key change for the next round (the keychain's stand-in for a capture trigger). */
export function noteKey(db: StoreDb, name: string): void {
  db.runUnwatched(
    db.q
      .insertInto('sync_outbox')
      .values({ tbl: API_KEYS, key: name, changed_at: Date.now() })
      .onConflict((oc) => oc.columns(['tbl', 'key']).doUpdateSet((eb) => ({ changed_at: eb.ref('excluded.changed_at') })))
  )
}

/** Notes every provider key there may be (API keys turned on: the next push carries those that exist). */
export function noteAllKeys(db: StoreDb, names: readonly string[]): void {
  db.transaction(() => {
    for (const name of names) noteKey(db, name)
  })
}


/**
 * API keys in the change log, when the user turns them on: the keychain has no triggers, so
 * the sync service notes each change of a provider key in `sync_outbox` (table `api_keys`), and
 * this stamps, sends and merges them like a one-field record (last writer wins by its stamp,
 * deletes as tombstones). The value travels only inside an encrypted segment or snapshot; the
 * database keeps a keyed hash of it (to tell a change), never the key.
 */
export class ApiKeySync {
  constructor(
    private readonly db: StoreDb,
    private readonly log: ChangeLog,
    private readonly clock: HybridClock,
    private readonly keys: ApiKeySource,
    /** The sync key: the hash of a value is keyed with it, so the database alone tells nothing about a key. */
    private readonly hashKey: Buffer
  ) {}

  private hash(value: string): string {
    return createHmac('sha256', this.hashKey).update(value).digest('base64').slice(0, 22)
  }

  private meta(name: string): MetaRow | undefined {
    return this.log.meta(API_KEYS, name)
  }

  /** A key is one field, `*`: its stamp and the keyed hash of its value. */
  private write(name: string, hlc: Hlc | undefined, hash: string | undefined, deleted: Hlc | null, dirty: boolean, goneAfter: string | null): void {
    this.log.writeMeta(API_KEYS, name, hlc ? { '*': hlc } : {}, hash ? { '*': hash } : {}, deleted, dirty, goneAfter)
  }

  /** Gives each noted key change its stamp (a key read from the keychain that differs from the last one stamped). */
  async stamp(): Promise<void> {
    const noted = this.db.all(this.db.q.selectFrom('sync_outbox').select(['key', 'changed_at']).where('tbl', '=', API_KEYS))
    const offset = this.clock.now() - Date.now()
    for (const { key: name, changed_at } of noted) {
      const value = this.keys.isKey(name) ? await this.keys.read(name) : undefined
      const meta = this.meta(name)
      const hlc = meta ? (JSON.parse(meta.hlcs) as Record<string, Hlc>)['*'] : undefined
      const hash = meta ? (JSON.parse(meta.hashes) as Record<string, string>)['*'] : undefined
      const alive = hlc !== undefined && (!meta?.deleted || hlc > meta.deleted)
      if (value === undefined) {
        if (alive) this.write(name, hlc, hash, this.clock.tick(changed_at + offset), true, null)
      } else {
        const h = this.hash(value)
        if (!alive || h !== hash) this.write(name, this.clock.tick(changed_at + offset), h, meta?.deleted ?? null, true, meta?.gone_after ?? null)
      }
      this.db.runUnwatched(this.db.q.deleteFrom('sync_outbox').where('tbl', '=', API_KEYS).where('key', '=', name).where('changed_at', '=', changed_at))
    }
  }

  private async state(name: string, meta: MetaRow): Promise<Change> {
    const change: Change = { t: API_KEYS, k: name }
    if (meta.deleted) change.d = meta.deleted
    const hlc = (JSON.parse(meta.hlcs) as Record<string, Hlc>)['*']
    const alive = hlc !== undefined && (!meta.deleted || hlc > meta.deleted)
    const value = alive ? await this.keys.read(name) : undefined
    if (hlc && value !== undefined) change.f = { '*': [hlc, value] }
    return change
  }

  /** Stamped key changes not yet in the store, with their values read from the keychain. */
  async outgoing(): Promise<Change[]> {
    const metas = this.db.all(this.db.q.selectFrom('sync_meta').selectAll().where('tbl', '=', API_KEYS).where('dirty', '=', 1))
    return Promise.all(metas.map((m) => this.state(m.key, m)))
  }

  /** Every key's state, for a snapshot. */
  async everything(): Promise<Change[]> {
    const metas = this.db.all(this.db.q.selectFrom('sync_meta').selectAll().where('tbl', '=', API_KEYS))
    return Promise.all(metas.map((m) => this.state(m.key, m)))
  }

  /** Merges other devices' key changes: the later stamp wins, written to (or removed from) the keychain. */
  async merge(changes: readonly Change[], origin: Origin): Promise<number> {
    let applied = 0
    for (const change of changes) {
      if (change.t !== API_KEYS || !this.keys.isKey(change.k)) continue
      const meta = this.meta(change.k)
      const mine = meta ? (JSON.parse(meta.hlcs) as Record<string, Hlc>)['*'] : undefined
      const myHash = meta ? (JSON.parse(meta.hashes) as Record<string, string>)['*'] : undefined
      const [theirs, value] = change.f?.['*'] ?? []
      for (const h of [theirs, change.d]) if (h) this.clock.observe(h)
      const newer = theirs !== undefined && (!mine || theirs > mine) && typeof value === 'string'
      const hlc = newer ? theirs : mine
      const hash = newer ? this.hash(value) : myHash
      const deleted = max(meta?.deleted, change.d)
      const goneAfter = change.d !== undefined && change.d === deleted && change.d !== meta?.deleted ? JSON.stringify(origin) : (meta?.gone_after ?? null)
      const wasAlive = mine !== undefined && (!meta?.deleted || mine > meta.deleted)
      const alive = hlc !== undefined && (!deleted || hlc > deleted)
      if (alive && newer) {
        await this.keys.write(change.k, value)
        applied++
      } else if (!alive && wasAlive) {
        await this.keys.write(change.k, undefined)
        applied++
      }
      this.write(change.k, hlc, hash, deleted, false, goneAfter)
    }
    return applied
  }
}
