import { readAppSettings, type AppSettings } from '../../../shared/data/app-settings'
import type { JsonValue } from '../../../shared/data/json'
import type { StoreDb } from '../database'
import { storeError } from '../errors'

/**
 * App settings as key → JSON value, as stored: readers take the typed view with
 * `readAppSettings` (shared/data/app-settings); the tools keep their own keys here too.
 * Never holds keys: those are refused by the bridge schema and by name here.
 */
export class SettingsRepository {
  /**
   * The table as last read, and its typed view: a reply asks for several settings (context
   * length, search limits, title and scene models), and each used to read and parse the whole
   * table again. Cleared by `set` and by `invalidate` (an import writes rows directly).
   */
  private cached?: { raw: Record<string, JsonValue>; app?: AppSettings }

  constructor(private readonly db: StoreDb) {}

  /** A copy of every stored setting (callers may change it). */
  get(): Record<string, JsonValue> {
    return { ...this.read().raw }
  }

  /** The typed settings, parsed once per change of the table. */
  app(): AppSettings {
    const cached = this.read()
    return (cached.app ??= readAppSettings(cached.raw))
  }

  /** Another writer changed the table (an import or its undo): read it again next time. */
  invalidate(): void {
    this.cached = undefined
  }

  private read(): { raw: Record<string, JsonValue>; app?: AppSettings } {
    if (this.cached) return this.cached
    const raw: Record<string, JsonValue> = {}
    for (const row of this.db.all(this.db.q.selectFrom('settings').selectAll())) raw[row.key] = JSON.parse(row.value) as JsonValue
    return (this.cached = { raw })
  }

  /** Merges `patch`; a `null` value removes the key. */
  set(patch: Record<string, JsonValue | undefined>): Record<string, JsonValue> {
    this.cached = undefined
    this.db.transaction(() => {
      for (const [key, value] of Object.entries(patch)) {
        if (value === undefined) continue
        if (/api[-_]?key|secret|password/i.test(key))
          throw storeError('ValidationError', `Settings cannot hold ${JSON.stringify(key)}: keys and passwords belong in the keychain (secrets.set).`, 400)
        if (value === null) this.db.run(this.db.q.deleteFrom('settings').where('key', '=', key))
        else
          this.db.run(
            this.db.q
              .insertInto('settings')
              .values({ key, value: JSON.stringify(value) })
              .onConflict((oc) => oc.column('key').doUpdateSet({ value: JSON.stringify(value) }))
          )
      }
    })
    this.cached = undefined
    return this.get()
  }
}
