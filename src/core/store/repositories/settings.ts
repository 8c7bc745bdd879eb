import type { JsonValue } from '../../../shared/data/json'
import type { StoreDb } from '../database'
import { storeError } from '../errors'

/**
 * App settings as key → JSON value, as stored: readers take the typed view with
 * `readAppSettings` (shared/data/app-settings); the tools keep their own keys here too.
 * Never holds keys: those are refused by the bridge schema and by name here.
 */
export class SettingsRepository {
  constructor(private readonly db: StoreDb) {}

  get(): Record<string, JsonValue> {
    const settings: Record<string, JsonValue> = {}
    for (const row of this.db.all(this.db.q.selectFrom('settings').selectAll())) settings[row.key] = JSON.parse(row.value) as JsonValue
    return settings
  }

  /** Merges `patch`; a `null` value removes the key. */
  set(patch: Record<string, JsonValue | undefined>): Record<string, JsonValue> {
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
    return this.get()
  }
}
