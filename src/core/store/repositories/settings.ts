import { readAppSettings, readFeatureSettings, settingsRows, type AppSettings, type FeatureSettings, type SettingsChange } from '../../../shared/data/app-settings'
import type { JsonValue } from '../../../shared/data/json'
import { logger } from '../../log/logger'
import type { StoreDb } from '../database'
import { storeError } from '../errors'

/**
 * The one home of the settings table. Every key is defined in shared/data/app-settings.ts:
 * the Settings keys (`app()`, what data.settings.get shows) and the features' own keys
 * (`features()`: the local API, tool servers, tool settings). Both are typed views, checked
 * against the definitions and parsed once per change of the table; `save` is the typed writer.
 * `get` / `set` are the rows as stored, for the import and restore gate
 * (security/imported-settings.ts), which checks raw rows by name before they are written.
 * Never holds keys: those are refused by the bridge schema and by name here.
 */
interface Parsed {
  raw: Record<string, JsonValue>
  app?: AppSettings
  features?: FeatureSettings
}

export class SettingsRepository {
  /**
   * The table as last read, and its typed view: a reply asks for several settings (context
   * length, search limits, title and scene models), and each used to read and parse the whole
   * table again. Cleared by `set` and by `invalidate` (an import writes rows directly).
   */
  private cached?: Parsed

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

  /**
   * The features' own keys, typed. A stored value that does not match its definition is left
   * out and logged by name once per change (not once per local API request that reads it).
   */
  features(): FeatureSettings {
    const cached = this.read()
    if (cached.features) return cached.features
    const { settings, refused } = readFeatureSettings(cached.raw)
    for (const r of refused) logger.warn('settings', `the stored setting ${r.key} is not valid (${r.reason}); it is left out`)
    return (cached.features = settings)
  }

  /** The typed writer: merges `change`; a `null` value removes the key (back to its default). */
  save(change: SettingsChange): void {
    this.set(settingsRows(change))
  }

  /** Another writer changed the table (an import or its undo): read it again next time. */
  invalidate(): void {
    this.cached = undefined
  }

  private read(): Parsed {
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

/** The typed reader and writer of the features' keys, as a feature takes them. */
export type FeatureSettingsStore = Pick<SettingsRepository, 'features' | 'save'>

/**
 * The same typed view over settings held elsewhere as rows (a plain object for one run: the
 * CLI's `chat --tool-server`, tests). Read again each time: its holder may change the object.
 */
export function featureSettingsOver(rows: { get(): Readonly<Record<string, unknown>>; set(patch: Record<string, JsonValue | undefined>): unknown }): FeatureSettingsStore {
  return {
    features: () => {
      const { settings, refused } = readFeatureSettings(rows.get())
      for (const r of refused) logger.warn('settings', `the setting ${r.key} is not valid (${r.reason}); it is left out`)
      return settings
    },
    save: (change) => void rows.set(settingsRows(change))
  }
}
