import { z } from 'zod'
import { call, stream } from '../define'

/** The four kinds of store sync runs through; each is a system the user already has. */
export const syncStoreKinds = ['folder', 's3', 'webdav', 'postgres'] as const
export type SyncStoreKind = (typeof syncStoreKinds)[number]

const text = (max: number) => z.string().trim().min(1).max(max)

/**
 * Where the change log lives. Secrets (S3 secret key, WebDAV password, PostgreSQL password) are
 * never part of this: they travel as `secret` once and are kept in the OS keychain.
 */
export const syncStoreConfigSchema = z.discriminatedUnion('kind', [
  /** A folder another program carries (Dropbox, iCloud Drive, Syncthing, a network share). */
  z.strictObject({ kind: z.literal('folder'), path: text(4096) }),
  /** Any S3-compatible bucket: AWS S3, Cloudflare R2, MinIO… `endpoint` absent means AWS. */
  z.strictObject({
    kind: z.literal('s3'),
    endpoint: z.url().max(2000).optional(),
    region: text(100).default('us-east-1'),
    bucket: text(255),
    prefix: z.string().trim().max(500).optional(),
    accessKeyId: text(500),
    forcePathStyle: z.boolean().optional()
  }),
  /** A WebDAV folder (Nextcloud, ownCloud, any WebDAV server). */
  z.strictObject({ kind: z.literal('webdav'), url: z.url().max(2000), username: z.string().max(500).optional() }),
  /** A PostgreSQL database (self-hosted, Supabase, Neon…); the password is the secret, not part of the address. */
  z.strictObject({
    kind: z.literal('postgres'),
    host: text(255),
    port: z.number().int().min(1).max(65_535).default(5432),
    database: text(255),
    user: text(255),
    ssl: z.boolean().optional(),
    schema: z.string().trim().max(63).optional()
  })
])
export type SyncStoreConfig = z.infer<typeof syncStoreConfigSchema>
export type SyncStoreConfigInput = z.input<typeof syncStoreConfigSchema>

/** What is synced; API keys only when the user turns it on (then end-to-end encrypted the same way). */
export const syncScopeSchema = z.strictObject({
  conversations: z.boolean(),
  agents: z.boolean(),
  settings: z.boolean(),
  images: z.boolean(),
  apiKeys: z.boolean()
})
export type SyncScope = z.infer<typeof syncScopeSchema>

export interface SyncDevice {
  id: string
  name: string
  /** When it last wrote to the store (ms since epoch). */
  lastSeenAt: number
  /** This device. */
  current: boolean
}

/**
 * off: not set up · paused · idle: synced · syncing · offline: the store cannot be reached, will
 * retry at `nextRetryAt` · locked: the passphrase must be typed on this device · error: see `error`.
 */
export type SyncState = 'off' | 'paused' | 'idle' | 'syncing' | 'offline' | 'locked' | 'error'

export interface SyncError {
  /** A stable code: SyncWrongPassphrase, SyncStoreUnreachable, SyncStoreAuth, SyncStoreFull, SyncTampered, SyncStoreInvalid… */
  code: string
  message: string
  /** What the user can do about it, in one sentence. */
  fix?: string
}

export interface SyncStatus {
  state: SyncState
  /** The store as configured (no secret in it). */
  store?: SyncStoreConfig
  scope: SyncScope
  deviceId: string
  deviceName: string
  /** Local changes not yet in the store. */
  pendingChanges: number
  /** Changes of the running sync, for "syncing n changes". */
  syncingChanges?: number
  /** The running sync's long download (a snapshot's history image): bytes so far and in all, for a progress bar. */
  transfer?: { done: number; total: number }
  lastSyncedAt?: number
  nextRetryAt?: number
  error?: SyncError
  /** Records merged where two devices changed the same field (the later kept); never data lost. */
  lastMerge?: { applied: number; conflicts: number; recovered: number; /** When that round ended: a later round that merged nothing leaves it as it was. */ at: number }
  devices: SyncDevice[]
  /**
   * Gaps in another device's segments (lost by the store, deleted by hand) that this device read
   * past: the first missing object, how many, whose, and since when. Gone once its writer has
   * sent their content again.
   */
  missing?: Array<{ key: string; count: number; device: string; deviceName: string; since: number }>
  /** Browser mode with a password: the page shows sync read-only (a store is a host resource). */
  canChange: boolean
}

/**
 * An edit of this device's that a later one from another device replaced (a title, an agent's
 * field, a setting), kept so the user can see it and bring it back: the newest 100.
 */
export interface SyncReplacedEdit {
  id: number
  table: 'agents' | 'conversations' | 'topics' | 'messages' | 'files' | 'image_generations' | 'settings'
  key: string
  /** The column (a setting's is `value`, its JSON). */
  field: string
  /** What the record is called now (a setting: its key); null when it was deleted since. */
  label: string | null
  /** This device's value, replaced. */
  replaced: string | number | null
  /** The later value, kept. */
  kept: string | number | null
  /** The device whose edit was kept: its name when it is listed, else its id. */
  keptBy: string
  /** When it was replaced here (ms since epoch). */
  at: number
}

export const syncSetupSchema = z.strictObject({
  store: syncStoreConfigSchema,
  /** The store's secret (S3 secret key, WebDAV or PostgreSQL password); absent keeps the one saved. */
  secret: z.string().max(10_000).optional(),
  /** The sync passphrase: derives the key; never stored in plain text, never sent to the store. */
  passphrase: z.string().min(8, 'use at least 8 characters for the sync passphrase').max(1000),
  scope: syncScopeSchema.partial().optional(),
  deviceName: text(100).optional()
})
export type SyncSetup = z.infer<typeof syncSetupSchema>

export const syncProcedures = {
  'sync.status': call<SyncStatus>()(z.object({}).strict()),
  /** Status now and on every change (state, pending count, errors, devices). */
  'sync.watch': stream<SyncStatus, void>()(z.object({}).strict()),
  /** Reaches the store and checks it can be written, without changing any setting. */
  'sync.test': call<{ ok: true; objects: number }>()(z.strictObject({ store: syncStoreConfigSchema, secret: z.string().max(10_000).optional() })),
  /** Sets up (or joins) sync: an empty store gets this passphrase; a used one must match it (SyncWrongPassphrase, nothing merged). */
  'sync.setup': call<SyncStatus>()(syncSetupSchema),
  /** Changes what is synced, pauses or resumes, renames this device. */
  'sync.update': call<SyncStatus>()(z.strictObject({ paused: z.boolean().optional(), scope: syncScopeSchema.partial().optional(), deviceName: text(100).optional() })),
  /** Types the passphrase again on this device (state `locked`). */
  'sync.unlock': call<SyncStatus>()(z.strictObject({ passphrase: z.string().min(1).max(1000) })),
  /** Push and pull now; resolves when the round is done. */
  'sync.now': call<SyncStatus>()(z.object({}).strict()),
  'sync.devices': call<SyncDevice[]>()(z.object({}).strict()),
  /**
   * Forgets another device gone for good: its record no longer holds deletions for it, it leaves
   * the list, and if it syncs again it is told to set sync up again (SyncDeviceForgotten).
   */
  'sync.forgetDevice': call<SyncDevice[]>()(z.strictObject({ deviceId: z.string().min(1).max(100) })),
  /** After another device forgot this one: joins again as a new device, keeping what it has merged. */
  'sync.rejoin': call<SyncStatus>()(z.object({}).strict()),
  /** This device's edits that later ones from other devices replaced, newest first. */
  'sync.replacedEdits': call<SyncReplacedEdit[]>()(z.object({}).strict()),
  /** Brings a replaced edit back, as an edit made now here (so it is sent, and wins everywhere); the list after it. */
  'sync.bringBack': call<SyncReplacedEdit[]>()(z.strictObject({ id: z.number().int().positive() })),
  /** Stops syncing on this device; the store and other devices are untouched. */
  'sync.disconnect': call<SyncStatus>()(z.object({}).strict())
}
