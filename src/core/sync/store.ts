/**
 * A sync store: where devices meet. The contract is a small object store, which each of the four
 * real systems (a folder, an S3 bucket, a WebDAV folder, a PostgreSQL table) can keep exactly:
 *
 * - keys are `/`-separated paths of [A-Za-z0-9._-] segments (`segments/<device>/<seq>.seg`,
 *   `blobs/<sha256>`, `snapshots/<id>.snap`, `meta/keys.json`, `devices/<device>.json`);
 * - `put` is all or nothing: a reader never sees half an object written by a finished put (an
 *   interrupted one may leave nothing or, on stores that cannot promise it, a truncated body that
 *   the sync core refuses by its authentication tag and writes again);
 * - `create` writes only when the key is absent and says whether it did (the one compare-and-set
 *   the core needs: the first device to set up a store fixes its key parameters);
 * - what the store holds is ciphertext, except `meta/keys.json` (KDF parameters, a key check).
 */
export interface SyncStore {
  readonly kind: 'folder' | 's3' | 'webdav' | 'postgres'
  /** Reaches the store and checks it can be read and written; throws SyncStoreError. */
  test(): Promise<void>
  put(key: string, body: Uint8Array): Promise<void>
  /** Writes only when absent: true when written, false when the key already existed. */
  create(key: string, body: Uint8Array): Promise<boolean>
  /**
   * The object, or undefined when absent. One larger than the store's limit (`MAX_OBJECT_BYTES`)
   * is not read: ObjectTooLarge, before its body is taken in.
   */
  get(key: string): Promise<Uint8Array | undefined>
  /** Keys under a prefix (which ends in `/`), sorted, with their sizes. */
  list(prefix: string): Promise<Array<{ key: string; size: number }>>
  delete(key: string): Promise<void>
  /**
   * Stores that can push (PostgreSQL LISTEN/NOTIFY) call `onChange` when another device wrote;
   * the others leave this out and the core polls with back-off. Returns a stop function.
   */
  watch?(onChange: (key: string) => void): Promise<() => Promise<void>>
  /**
   * What the store met and would not touch since it was last asked (a folder store's links),
   * by key: the round names them as refused. Stores that cannot hold such things leave this out.
   */
  takeRefused?(): string[]
  close(): Promise<void>
}

/** Why a store call failed, as the user can act on it. */
export type SyncStoreErrorCode =
  | 'SyncStoreUnreachable' // network down, refused, timed out: queue and retry
  | 'SyncStoreAuth' // wrong key, password or permissions: the user must fix the settings
  | 'SyncStoreFull' // quota or disk full (S3 QuotaExceeded, WebDAV 507, PostgreSQL 53100, ENOSPC)
  | 'SyncStoreInvalid' // no such bucket, folder, database; bad address
  | 'SyncStoreFailed' // anything else, with the store's own words

export class SyncStoreError extends Error {
  constructor(
    readonly code: SyncStoreErrorCode,
    message: string,
    /** What the user can do, one sentence ("Check the access key in Settings → Sync."). */
    readonly fix?: string,
    options?: { cause?: unknown }
  ) {
    super(message, options)
    this.name = 'SyncStoreError'
  }

  /** Worth retrying later without the user doing anything. */
  get transient(): boolean {
    return this.code === 'SyncStoreUnreachable'
  }
}

/** Keys are checked the same way by every store, so a bug in the core cannot escape the prefix. */
export function assertStoreKey(key: string): void {
  if (!/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*\/?$/.test(key) || key.split('/').some((part) => part === '.' || part === '..')) {
    throw new SyncStoreError('SyncStoreFailed', `Not a valid sync object key: ${JSON.stringify(key)}`)
  }
}

/**
 * The most a device reads of one object: well above anything sync writes (segments are cut at
 * `SEGMENT_BYTES`, image chunks are 8 MB, attachments 20 MB), and small enough to hold in memory
 * on any machine. Whoever can write to the store without the passphrase could otherwise leave an
 * object of gigabytes under a name sync reads, and every device would run out of memory on it.
 */
export const MAX_OBJECT_BYTES = 256 * 1024 * 1024

/** Options every store takes. */
export interface StoreLimits {
  /** The largest object `get` reads (tests set a small one). */
  maxObjectBytes?: number
}

const megabytes = (n: number) => `${Math.round(n / (1024 * 1024)).toLocaleString('en')} MB`

/** An object the store would not read as sync's: refused by name like a tampered one, never merged. */
export class RefusedObject extends SyncStoreError {
  constructor(
    readonly key: string,
    message: string,
    fix: string
  ) {
    super('SyncStoreFailed', message, fix)
    this.name = 'RefusedObject'
  }
}

/** An object larger than anything sync writes: not read. */
export class ObjectTooLarge extends RefusedObject {
  constructor(key: string, size: number | undefined, limit: number) {
    super(key, `${key} is ${size === undefined ? 'longer than' : `${megabytes(size)}, over`} the ${megabytes(limit)} sync ever writes in one object: not read.`, 'Switchboard did not write it. Someone with access to the store may have: delete it there.')
    this.name = 'ObjectTooLarge'
  }
}

/**
 * A link (symbolic link, junction) in a folder store where sync keeps an object or a folder of
 * them. Followed, a device would read, write and delete in whatever folder it points at (a
 * user's documents): never followed, in any call.
 */
export class LinkInStore extends RefusedObject {
  constructor(key: string) {
    super(key, `${key} in the sync folder is a link to somewhere else: Switchboard does not follow it, and wrote and deleted nothing through it.`, 'Switchboard never makes links there; someone with access to the folder did. Remove the link (not what it points at).')
    this.name = 'LinkInStore'
  }
}

/**
 * Reads a response body of at most `limit` bytes into one buffer: sized from `declared` (a
 * Content-Length) when the server gave one, gathered piece by piece otherwise. A body that goes
 * past the limit, or past what it declared, stops the read at that point.
 */
export async function readLimited(key: string, body: AsyncIterable<Uint8Array> & { destroy?(): void }, declared: number | undefined, limit: number): Promise<Uint8Array> {
  if (declared !== undefined && declared > limit) {
    // Not drained: the connection is dropped rather than kept for a body nobody reads.
    body.destroy?.()
    throw new ObjectTooLarge(key, declared, limit)
  }
  const bound = declared ?? limit
  const pieces: Uint8Array[] = []
  const into = declared !== undefined ? Buffer.allocUnsafeSlow(declared) : undefined
  let length = 0
  for await (const piece of body) {
    if (length + piece.byteLength > bound) throw declared !== undefined ? new SyncStoreError('SyncStoreFailed', `${key}: the store sent more than the ${declared} bytes it announced.`) : new ObjectTooLarge(key, undefined, limit)
    if (into) into.set(piece, length)
    else pieces.push(piece)
    length += piece.byteLength
  }
  if (into) return new Uint8Array(into.buffer, into.byteOffset, length)
  return pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, length)
}
