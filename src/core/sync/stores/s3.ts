/**
 * The sync store in an S3-compatible bucket (AWS S3, Cloudflare R2, MinIO, Backblaze B2…), through
 * the AWS SDK. Objects live under the optional prefix; a PUT is atomic in S3, so `put` is all or
 * nothing by itself.
 *
 * `create` uses a conditional write (`If-None-Match: *`), which AWS S3, R2 and MinIO honour. Some
 * S3-compatible servers ignore the header and overwrite; the first `create` of a store finds out
 * which kind it talks to (a probe object written twice, the second time conditionally) and, on a
 * server that ignores it, falls back to look-then-write with a read-back: two devices racing
 * within the same fraction of a second could both believe they created the key (documented in
 * docs/sync-stores.md; the core only uses `create` when a store is first set up).
 */
import type { S3Client, S3ServiceException } from '@aws-sdk/client-s3'
import type { SyncStoreConfig } from '../../../shared/bridge/procedures/sync'
import { assertStoreKey, MAX_OBJECT_BYTES, readLimited, SyncStoreError, type StoreLimits, type SyncStore } from '../store'

export type S3StoreConfig = Extract<SyncStoreConfig, { kind: 's3' }>

export interface S3StoreOptions extends StoreLimits {
  /** How long to wait for a TCP connection before calling the store unreachable. */
  connectTimeoutMs?: number
  /** How long one request may take (a 5 MB upload over a slow line needs minutes). */
  requestTimeoutMs?: number
}

const NETWORK_CODES = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']

/** An S3 error (by its code, HTTP status or network failure) as the user can act on it. */
export function mapS3Error(error: unknown, where: string): SyncStoreError {
  if (error instanceof SyncStoreError) return error
  const e = error as (Partial<S3ServiceException> & { code?: string; Code?: string; $metadata?: { httpStatusCode?: number } }) | undefined
  const name = e?.Code ?? e?.name ?? ''
  const status = e?.$metadata?.httpStatusCode
  const message = `S3 ${where}: ${name && name !== 'Error' ? `${name}: ` : ''}${e?.message ?? String(error)}`
  const options = { cause: error }
  // Quota errors come with 403 on some servers: the code decides before the status does.
  if (['QuotaExceeded', 'EntityTooLarge', 'StorageQuotaExceeded', 'XMinioStorageFull', 'InsufficientStorage', 'MaxMessageLengthExceeded'].includes(name) || status === 507) {
    return new SyncStoreError('SyncStoreFull', message, 'Free space in the bucket or raise its quota.', options)
  }
  if (['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'AccessDenied', 'InvalidToken', 'ExpiredToken', 'TokenRefreshRequired', 'AllAccessDisabled', 'AccountProblem', 'InvalidClientTokenId'].includes(name) || status === 401 || status === 403) {
    return new SyncStoreError('SyncStoreAuth', message, 'Check the access key, the secret key and the bucket’s permissions in Settings → Sync.', options)
  }
  if (name === 'NoSuchBucket') return new SyncStoreError('SyncStoreInvalid', message, 'Create the bucket first, or correct its name in Settings → Sync.', options)
  if (['PermanentRedirect', 'AuthorizationHeaderMalformed', 'IllegalLocationConstraintException', 'InvalidBucketName', 'InvalidRegion'].includes(name) || status === 301) {
    return new SyncStoreError('SyncStoreInvalid', message, 'Check the bucket’s region and endpoint in Settings → Sync.', options)
  }
  const code = e?.code ?? ''
  if (
    NETWORK_CODES.includes(code) ||
    ['TimeoutError', 'RequestTimeout', 'RequestTimeoutException', 'NetworkingError', 'SlowDown', 'ServiceUnavailable', 'InternalError', 'AbortError'].includes(name) ||
    (status !== undefined && status >= 500) ||
    /socket hang up|connect ECONNREFUSED|getaddrinfo|timed? ?out/i.test(e?.message ?? '')
  ) {
    return new SyncStoreError('SyncStoreUnreachable', message, 'Sync will retry; check the endpoint and your network.', options)
  }
  return new SyncStoreError('SyncStoreFailed', message, undefined, options)
}

/** `a/b` → `a/b/`; `''` or absent → `''`. */
function normalisePrefix(prefix: string | undefined): string {
  const trimmed = (prefix ?? '').trim().replace(/^\/+|\/+$/g, '')
  if (trimmed === '') return ''
  try {
    assertStoreKey(trimmed)
  } catch (error) {
    throw new SyncStoreError('SyncStoreInvalid', `S3: the prefix ${JSON.stringify(prefix)} is not a folder name of letters, digits, ".", "_", "-" and "/".`, 'Correct the prefix in Settings → Sync.', { cause: error })
  }
  return trimmed + '/'
}

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } }
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.Code === 'NoSuchKey' || (e?.$metadata?.httpStatusCode === 404 && e?.name !== 'NoSuchBucket')
}

function isPreconditionFailed(error: unknown): boolean {
  const e = error as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } }
  return e?.name === 'PreconditionFailed' || e?.Code === 'PreconditionFailed' || e?.$metadata?.httpStatusCode === 412
}

/** Concurrent conditional writes to one key: AWS answers 409 and asks to retry. */
function isConditionalConflict(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } }
  return e?.name === 'ConditionalRequestConflict' || e?.$metadata?.httpStatusCode === 409
}

const equalBytes = (a: Uint8Array, b: Uint8Array) => a.byteLength === b.byteLength && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength))

export async function openS3Store(config: S3StoreConfig, secret?: string, options: S3StoreOptions = {}): Promise<SyncStore> {
  // Loaded on first use, like the provider SDKs: most starts never open an S3 store.
  const sdk = await import('@aws-sdk/client-s3')
  const prefix = normalisePrefix(config.prefix)
  const client: S3Client = new sdk.S3Client({
    region: config.region || 'us-east-1',
    endpoint: config.endpoint,
    forcePathStyle: config.forcePathStyle,
    credentials: { accessKeyId: config.accessKeyId, secretAccessKey: secret ?? '' },
    // Our own retry (the core's back-off) decides when to try again; the SDK retries once for a blip.
    maxAttempts: 2,
    requestHandler: { connectionTimeout: options.connectTimeoutMs ?? 10_000, requestTimeout: options.requestTimeoutMs ?? 300_000, throwOnRequestTimeout: true },
    // Only send and check checksums where S3 requires them: several S3-compatible servers reject
    // the newer default CRC32 headers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED'
  })
  const Bucket = config.bucket
  const limit = options.maxObjectBytes ?? MAX_OBJECT_BYTES
  const full = (key: string) => prefix + key

  const send = async <T>(where: string, action: () => Promise<T>): Promise<T> => {
    try {
      return await action()
    } catch (error) {
      throw mapS3Error(error, where)
    }
  }

  const putObject = (key: string, body: Uint8Array, ifNoneMatch?: boolean) =>
    client.send(new sdk.PutObjectCommand({ Bucket, Key: full(key), Body: body, ContentLength: body.byteLength, ContentType: 'application/octet-stream', ...(ifNoneMatch ? { IfNoneMatch: '*' } : {}) }))

  const getObject = async (key: string): Promise<Uint8Array | undefined> => {
    try {
      const result = await client.send(new sdk.GetObjectCommand({ Bucket, Key: full(key) }))
      if (!result.Body) return new Uint8Array()
      // The length is checked before the body is taken in: an object of gigabytes is not read.
      return await readLimited(key, result.Body as AsyncIterable<Uint8Array> & { destroy?(): void }, result.ContentLength, limit)
    } catch (error) {
      if (isNotFound(error)) return undefined
      throw error
    }
  }

  const deleteObject = (key: string) => client.send(new sdk.DeleteObjectCommand({ Bucket, Key: full(key) }))

  /** Whether this server refuses a conditional PUT on an existing key; found out once per store. */
  let conditionalWrites: Promise<boolean> | undefined
  const probeConditionalWrites = () =>
    (conditionalWrites ??= send('create', async () => {
      const probe = `.probe/if-none-match-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`
      const body = new TextEncoder().encode('probe')
      await putObject(probe, body)
      try {
        await putObject(probe, body, true)
        return false
      } catch (error) {
        if (isPreconditionFailed(error) || isConditionalConflict(error)) return true
        // A server that rejects the header outright (501 NotImplemented) does not support it either.
        if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 501) return false
        throw error
      } finally {
        await deleteObject(probe).catch(() => undefined)
      }
    }).catch((error: unknown) => {
      conditionalWrites = undefined
      throw error
    }))

  return {
    kind: 's3',
    async test() {
      await send('test', async () => {
        await client.send(new sdk.HeadBucketCommand({ Bucket }))
      }).catch((error: unknown) => {
        // HEAD has no body, so a missing bucket arrives as a bare 404.
        if (error instanceof SyncStoreError && (error.cause as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode === 404) {
          throw new SyncStoreError('SyncStoreInvalid', `S3 test: the bucket ${JSON.stringify(Bucket)} does not exist.`, 'Create the bucket first, or correct its name in Settings → Sync.', { cause: error })
        }
        throw error
      })
      const probe = `.probe/test-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`
      const body = new TextEncoder().encode('switchboard sync store test')
      await send('test', () => putObject(probe, body))
      const back = await send('test', () => getObject(probe))
      await send('test', () => deleteObject(probe))
      if (!back || !equalBytes(back, body)) throw new SyncStoreError('SyncStoreFailed', 'S3 test: the object written could not be read back.')
    },
    async put(key, body) {
      assertStoreKey(key)
      await send('put', () => putObject(key, body))
    },
    async create(key, body) {
      assertStoreKey(key)
      if (await probeConditionalWrites()) {
        for (let attempt = 0; ; attempt++) {
          try {
            await putObject(key, body, true)
            return true
          } catch (error) {
            if (isPreconditionFailed(error)) return false
            if (isConditionalConflict(error) && attempt < 4) {
              await new Promise((r) => setTimeout(r, 100 * 2 ** attempt))
              continue
            }
            throw mapS3Error(error, 'create')
          }
        }
      }
      // The server ignores If-None-Match: look, write, and read back to see whose body stayed.
      return send('create', async () => {
        const head = await client.send(new sdk.HeadObjectCommand({ Bucket, Key: full(key) })).then(
          () => true,
          (error: unknown) => {
            if (isNotFound(error)) return false
            throw error
          }
        )
        if (head) return false
        await putObject(key, body)
        const back = await getObject(key)
        return back !== undefined && equalBytes(back, body)
      })
    },
    async get(key) {
      assertStoreKey(key)
      return send('get', () => getObject(key))
    },
    async list(listPrefix) {
      if (listPrefix !== '') assertStoreKey(listPrefix)
      return send('list', async () => {
        const out: Array<{ key: string; size: number }> = []
        let ContinuationToken: string | undefined
        do {
          const page = await client.send(new sdk.ListObjectsV2Command({ Bucket, Prefix: full(listPrefix), ContinuationToken, MaxKeys: 1000 }))
          for (const item of page.Contents ?? []) {
            if (!item.Key?.startsWith(prefix)) continue
            const key = item.Key.slice(prefix.length)
            if (key.startsWith('.probe/') && !listPrefix.startsWith('.probe/')) continue
            out.push({ key, size: item.Size ?? 0 })
          }
          ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined
        } while (ContinuationToken)
        // S3 lists in UTF-8 byte order already; sorting again keeps the promise on servers that do not.
        return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      })
    },
    async delete(key) {
      assertStoreKey(key)
      await send('delete', () => deleteObject(key))
    },
    async close() {
      client.destroy()
    }
  }
}
