// The store form of Settings → Sync as data: the fields of each store kind, a draft the inputs edit,
// and the checks made before anything is sent (each names the field and what to type). Pure, tested
// without a page; the schema of the contract has the last word.
import { syncStoreConfigSchema, type SyncStoreConfig, type SyncStoreConfigInput, type SyncStoreKind } from '../../../shared/bridge/procedures/sync'

export interface StoreDraft {
  kind: SyncStoreKind
  path: string
  endpoint: string
  region: string
  bucket: string
  prefix: string
  accessKeyId: string
  forcePathStyle: boolean
  url: string
  username: string
  host: string
  port: string
  database: string
  user: string
  ssl: boolean
  schema: string
}

export type TextField = Exclude<keyof StoreDraft, 'kind' | 'forcePathStyle' | 'ssl'>
export type FlagField = 'forcePathStyle' | 'ssl'

export interface FieldSpec {
  name: TextField | FlagField
  type: 'text' | 'url' | 'number' | 'checkbox'
  required: boolean
  /** Shown in the empty input: what a real value looks like. */
  placeholder?: string
}

/** The fields of each kind, in form order; labels and hints are `sync.fields.<name>` and `sync.hints.<name>`. */
export const STORE_FIELDS: Record<SyncStoreKind, FieldSpec[]> = {
  folder: [{ name: 'path', type: 'text', required: true, placeholder: '/home/me/Dropbox/Switchboard' }],
  s3: [
    { name: 'endpoint', type: 'url', required: false, placeholder: 'https://<account>.r2.cloudflarestorage.com' },
    { name: 'region', type: 'text', required: true, placeholder: 'us-east-1' },
    { name: 'bucket', type: 'text', required: true, placeholder: 'my-switchboard-sync' },
    { name: 'prefix', type: 'text', required: false, placeholder: 'switchboard/' },
    { name: 'accessKeyId', type: 'text', required: true },
    { name: 'forcePathStyle', type: 'checkbox', required: false }
  ],
  webdav: [
    { name: 'url', type: 'url', required: true, placeholder: 'https://cloud.example.com/remote.php/dav/files/me/Switchboard' },
    { name: 'username', type: 'text', required: false }
  ],
  postgres: [
    { name: 'host', type: 'text', required: true, placeholder: 'db.<project>.supabase.co' },
    { name: 'port', type: 'number', required: true, placeholder: '5432' },
    { name: 'database', type: 'text', required: true, placeholder: 'postgres' },
    { name: 'user', type: 'text', required: true, placeholder: 'postgres' },
    { name: 'ssl', type: 'checkbox', required: false },
    { name: 'schema', type: 'text', required: false, placeholder: 'switchboard_sync' }
  ]
}

/** The store's secret, by kind: its label is `sync.secret.<kind>`; a folder has none. */
export const SECRET_REQUIRED: Record<SyncStoreKind, boolean | undefined> = { folder: undefined, s3: true, webdav: false, postgres: false }

export const emptyDraft = (kind: SyncStoreKind = 'folder'): StoreDraft => ({
  kind,
  path: '',
  endpoint: '',
  region: 'us-east-1',
  bucket: '',
  prefix: '',
  accessKeyId: '',
  forcePathStyle: false,
  url: '',
  username: '',
  host: '',
  port: '5432',
  database: '',
  user: '',
  ssl: true,
  schema: ''
})

/** The form filled from the store already set up (its secret stays in the keychain). */
export function draftFromStore(store: SyncStoreConfig): StoreDraft {
  const draft = emptyDraft(store.kind)
  switch (store.kind) {
    case 'folder':
      return { ...draft, path: store.path }
    case 's3':
      return { ...draft, endpoint: store.endpoint ?? '', region: store.region, bucket: store.bucket, prefix: store.prefix ?? '', accessKeyId: store.accessKeyId, forcePathStyle: store.forcePathStyle ?? false }
    case 'webdav':
      return { ...draft, url: store.url, username: store.username ?? '' }
    case 'postgres':
      return { ...draft, host: store.host, port: String(store.port), database: store.database, user: store.user, ssl: store.ssl ?? false, schema: store.schema ?? '' }
  }
}

/** Where the store is, in one line (the Settings summary once set up). */
export function storeAddress(store: SyncStoreConfig): string {
  switch (store.kind) {
    case 'folder':
      return store.path
    case 's3':
      return `${store.endpoint ?? 'AWS S3'} · ${store.bucket}${store.prefix ? `/${store.prefix}` : ''}`
    case 'webdav':
      return store.username ? `${store.username} @ ${store.url}` : store.url
    case 'postgres':
      return `${store.user}@${store.host}:${store.port}/${store.database}${store.schema ? ` (${store.schema})` : ''}`
  }
}

/** Field → i18n key of what is wrong with it. */
export type FieldErrors = Partial<Record<TextField | 'secret', string>>

const isHttpUrl = (value: string) => {
  try {
    const url = new URL(value)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== ''
  } catch {
    return false
  }
}
/** A full path on the machine that runs the core: POSIX, a Windows drive, or a UNC share. */
const isAbsolutePath = (value: string) => /^(\/|[A-Za-z]:[\\/]|\\\\[^\\])/.test(value)
// S3 bucket names: 3–63 lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit.
const isBucket = (value: string) => /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(value)
// A PostgreSQL identifier used unquoted: letters, digits, underscores, not starting with a digit.
const isIdentifier = (value: string) => /^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(value)
// A host name or address, without a scheme, path or port (those go in their own fields).
const isHost = (value: string) => /^[A-Za-z0-9.-]+$|^\[?[0-9A-Fa-f:.]+\]?$/.test(value)

/**
 * The store the draft describes, or what to fix first. `secretSaved`: a secret for this store is
 * already in the keychain, so leaving the field empty keeps it.
 */
export function validateStore(draft: StoreDraft, secret: string, secretSaved: boolean): { store: SyncStoreConfigInput } | { errors: FieldErrors } {
  const errors: FieldErrors = {}
  const v = (name: TextField) => draft[name].trim()
  for (const field of STORE_FIELDS[draft.kind]) {
    if (field.type === 'checkbox') continue
    const name = field.name as TextField
    if (field.required && !v(name)) errors[name] = 'sync.invalid.required'
  }
  const check = (name: TextField, ok: (value: string) => boolean, key: string) => {
    if (!errors[name] && v(name) && !ok(v(name))) errors[name] = key
  }
  switch (draft.kind) {
    case 'folder':
      check('path', isAbsolutePath, 'sync.invalid.absolutePath')
      break
    case 's3':
      check('endpoint', isHttpUrl, 'sync.invalid.url')
      check('bucket', isBucket, 'sync.invalid.bucket')
      if (SECRET_REQUIRED.s3 && !secretSaved && !secret.trim()) errors.secret = 'sync.invalid.secret'
      break
    case 'webdav':
      check('url', isHttpUrl, 'sync.invalid.url')
      break
    case 'postgres':
      check('host', isHost, 'sync.invalid.host')
      check('port', (p) => /^\d+$/.test(p) && Number(p) >= 1 && Number(p) <= 65_535, 'sync.invalid.port')
      check('schema', isIdentifier, 'sync.invalid.schema')
      break
  }
  if (Object.keys(errors).length > 0) return { errors }

  const optional = (name: TextField) => (v(name) ? v(name) : undefined)
  const store: SyncStoreConfigInput =
    draft.kind === 'folder'
      ? { kind: 'folder', path: v('path') }
      : draft.kind === 's3'
        ? { kind: 's3', endpoint: optional('endpoint'), region: v('region'), bucket: v('bucket'), prefix: optional('prefix'), accessKeyId: v('accessKeyId'), forcePathStyle: draft.forcePathStyle || undefined }
        : draft.kind === 'webdav'
          ? { kind: 'webdav', url: v('url'), username: optional('username') }
          : { kind: 'postgres', host: v('host'), port: Number(v('port')), database: v('database'), user: v('user'), ssl: draft.ssl, schema: optional('schema') }
  // Drop the fields left empty: the contract's objects are strict about what they hold, not about absence.
  const clean = Object.fromEntries(Object.entries(store).filter(([, value]) => value !== undefined)) as SyncStoreConfigInput
  // The contract's schema has the last word (lengths, formats); a field it refuses is named.
  const parsed = syncStoreConfigSchema.safeParse(clean)
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0] ?? '') as TextField
      if (name in draft) errors[name] ??= 'sync.invalid.value'
    }
    return { errors }
  }
  return { store: clean }
}

/** The passphrase check before set-up (twice when setting up a new store) or before joining. */
export function validatePassphrase(passphrase: string, confirm: string, mode: 'setup' | 'join'): string | undefined {
  if (passphrase.length < 8) return 'sync.invalid.passphraseShort'
  if (mode === 'setup' && passphrase !== confirm) return 'sync.invalid.passphraseMismatch'
  return undefined
}
