import { createHash, randomUUID, type Hash } from 'node:crypto'
import { constants, createReadStream } from 'node:fs'
import { mkdir, open, readFile, rename, rm, stat, writeFile, type FileHandle } from 'node:fs/promises'
import { dirname } from 'node:path'

/** One file to fetch into place: where from, where to, and what it must be. */
export interface FileTarget {
  url: string
  dest: string
  sizeBytes: number
  /** Hex sha256 the finished file must have (the hub's LFS oid, the registry's digest). */
  sha256?: string
  headers?: Record<string, string>
}

export type DownloadNote = 'rangeIgnored' | 'corruptRetried' | 'resumed' | 'retrying'

export interface FileDownloadHooks {
  /** Bytes of this file on disk and verified in order so far (never lower than an earlier call, except after a restart the note explains). */
  progress(bytes: number): void
  note?(note: DownloadNote, detail: string): void
}

export interface FileDownloadOptions {
  fetch?: typeof fetch
  signal?: AbortSignal
  /** Attempts in a row that bring no new byte before giving up. */
  maxStalledAttempts?: number
  retryDelayMs?: number
}

/** A failure that retrying cannot fix: the error says what to do instead. */
export class DownloadError extends Error {
  constructor(
    message: string,
    readonly code: 'notFound' | 'gated' | 'unauthorized' | 'diskFull' | 'corrupt' | 'network' | 'http' | 'sizeMismatch' | 'refused' | 'tooLarge',
    readonly status?: number
  ) {
    super(message)
  }
}

/** Where the Hugging Face token goes (both places exist: Settings and the Local models page show one form), named in every error that needs one. */
export const HF_TOKEN_HINT = 'add a Hugging Face token in Settings → Model library (the same form is under Local models → Model library), or set HF_TOKEN for the CLI'

const partPath = (dest: string) => `${dest}.part`
const statePath = (dest: string) => `${dest}.part.json`
/** The files a download of `dest` writes beside it before it is whole. */
export const partFiles = (dest: string) => [partPath(dest), statePath(dest), `${dest}.part.lock`]
const WRITE_BATCH = 1024 * 1024
/** Batches queued for writing before reading waits (~4 MB in memory per download). */
const MAX_PENDING = 4

interface PartState {
  url: string
  sizeBytes: number
  sha256?: string
}

/**
 * Fetches one file so that an interruption never costs the bytes already on disk: they
 * stay in `<dest>.part` (with `<dest>.part.json` naming what they belong to) across
 * dropped connections, app restarts and crashes; the next attempt hashes them once and asks
 * for the rest with an HTTP Range. The sha256 is computed while the bytes arrive and
 * checked before the file takes its final name, so a file at `dest` is always whole and
 * verified. A server that ignores Range restarts the file from zero and says so.
 */
export async function downloadFile(target: FileTarget, hooks: FileDownloadHooks, options: FileDownloadOptions = {}): Promise<void> {
  const existing = await stat(target.dest).catch(() => undefined)
  if (existing && existing.size === target.sizeBytes) {
    hooks.progress(target.sizeBytes)
    return
  }
  await mkdir(dirname(target.dest), { recursive: true })
  // One transfer per file across processes (the app and the CLI, two CLIs on one data folder):
  // the second waits for the first's lock, following its partial's bytes, then finds the file whole.
  const release = await lockFile(target, hooks, options.signal)
  if (!release) return downloadFile(target, hooks, options)
  try {
    await transferVerified(target, hooks, options)
  } finally {
    await release()
  }
}

async function transferVerified(target: FileTarget, hooks: FileDownloadHooks, options: FileDownloadOptions): Promise<void> {
  let corruptRetried = false
  for (;;) {
    try {
      await transfer(target, hooks, options)
      return
    } catch (error) {
      if (error instanceof DownloadError && error.code === 'corrupt' && !corruptRetried) {
        // A damaged byte (on the wire or on disk): the partial is thrown away and fetched once more.
        corruptRetried = true
        hooks.note?.('corruptRetried', error.message)
        continue
      }
      throw error
    }
  }
}

const lockPath = (dest: string) => `${dest}.part.lock`
const LOCK_POLL_MS = 200

/**
 * Takes the file's lock (`<dest>.part.lock`, created exclusively, naming its process), or waits
 * while a live process holds it, reporting the partial's growth meanwhile. Resolves with the
 * release, or with undefined once the holder let go (the caller starts over: the file may be whole).
 * A lock whose process is gone (a crash, a kill) is taken over.
 */
async function lockFile(target: FileTarget, hooks: FileDownloadHooks, signal?: AbortSignal): Promise<(() => Promise<void>) | undefined> {
  const path = lockPath(target.dest)
  const token = `${process.pid} ${randomUUID()}`
  let waited = false
  for (;;) {
    signal?.throwIfAborted()
    try {
      const handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0))
      try {
        await handle.writeFile(token)
      } finally {
        await handle.close()
      }
      if (waited) return undefined
      return async () => {
        // Only our own lock: a holder that took over a lock it thought stale keeps its own.
        if ((await readFile(path, 'utf8').catch(() => '')) === token) await rm(path, { force: true })
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const holder = await readFile(path, 'utf8').catch(() => '')
    const pid = Number(holder.split(' ')[0])
    if (holder && !(Number.isInteger(pid) && pid > 0 && processAlive(pid))) {
      // The holder is gone: its lock (if it is still that one) goes too, and the partial is ours to resume.
      if ((await readFile(path, 'utf8').catch(() => '')) === holder) await rm(path, { force: true })
      continue
    }
    waited = true
    const size = (await stat(partPath(target.dest)).catch(() => undefined))?.size
    if (size !== undefined) hooks.progress(Math.min(size, target.sizeBytes))
    await delay(LOCK_POLL_MS, signal)
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: alive, another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

async function transfer(target: FileTarget, hooks: FileDownloadHooks, options: FileDownloadOptions): Promise<void> {
  const doFetch = options.fetch ?? fetch
  const part = partPath(target.dest)
  const state: PartState = { url: target.url, sizeBytes: target.sizeBytes, ...(target.sha256 ? { sha256: target.sha256 } : {}) }
  const earlier = await readState(target.dest)
  if (!earlier || earlier.sizeBytes !== state.sizeBytes || earlier.sha256 !== state.sha256) {
    // Bytes of another version of the file (or of nothing we know) are not a start.
    await rm(part, { force: true })
  }
  await writeFile(statePath(target.dest), JSON.stringify(state))
  let offset = (await stat(part).catch(() => undefined))?.size ?? 0
  if (offset > target.sizeBytes) {
    await rm(part, { force: true })
    offset = 0
  }
  let hash = createHash('sha256')
  if (offset > 0) {
    await hashFile(part, hash)
    hooks.note?.('resumed', `${offset} bytes were already on disk`)
  }
  hooks.progress(offset)
  // Never through a link (one planted at the partial's name would carry the bytes elsewhere).
  const handle = await open(part, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0))
  let stalled = 0
  const maxStalled = options.maxStalledAttempts ?? 6
  try {
    while (offset < target.sizeBytes) {
      options.signal?.throwIfAborted()
      const before = offset
      try {
        const response = await doFetch(target.url, {
          headers: { ...target.headers, ...(offset > 0 ? { Range: `bytes=${offset}-` } : {}) },
          redirect: 'follow',
          signal: options.signal
        })
        if (response.status === 416 && offset > 0) {
          // Nothing left to send: the partial may already be whole.
          await response.body?.cancel()
          break
        }
        if (!response.ok) {
          await response.body?.cancel().catch(() => undefined)
          throw httpError(response.status, target.url, response.headers)
        }
        if (offset > 0 && response.status !== 206) {
          hooks.note?.('rangeIgnored', 'The server does not support resuming (it ignored the Range request): the file starts over from zero.')
          await handle.truncate(0)
          offset = 0
          hash = createHash('sha256')
          hooks.progress(0)
        } else if (response.status === 206) {
          const start = Number(/bytes (\d+)-/.exec(response.headers.get('content-range') ?? '')?.[1] ?? NaN)
          if (start !== offset) {
            await response.body?.cancel().catch(() => undefined)
            throw new DownloadError(`The server resumed at byte ${start} instead of ${offset}.`, 'http', 206)
          }
        }
        const pos = { offset }
        try {
          await pump(response, handle, hash, pos, target.sizeBytes, hooks)
        } finally {
          // A drop mid-body still advanced the partial: the next Range starts after those bytes.
          offset = pos.offset
        }
      } catch (error) {
        if (options.signal?.aborted) throw options.signal.reason ?? error
        if (error instanceof DownloadError && error.code !== 'network') throw error
        if (isDiskFull(error)) throw diskFull(target.dest)
        stalled = offset > before ? 0 : stalled + 1
        if (stalled >= maxStalled) {
          throw new DownloadError(`The download keeps failing (${describe(error)}); ${offset} bytes are kept, so the next try resumes from there.`, 'network')
        }
        hooks.note?.('retrying', describe(error))
        await delay((options.retryDelayMs ?? 250) * Math.max(1, stalled), options.signal)
      }
    }
    // No fsync: it made a 2 GB download several times slower than the copy it follows, and
    // peers (huggingface_hub, Ollama) rename without one. After a power cut the file may need
    // downloading again; bytes on disk are never trusted without their sha256 (docs/decisions.md 63).
  } catch (error) {
    if (isDiskFull(error)) throw diskFull(target.dest)
    throw error
  } finally {
    await handle.close()
  }
  const size = (await stat(part)).size
  if (size !== target.sizeBytes) {
    await rm(part, { force: true })
    throw new DownloadError(`The server sent ${size} bytes where ${target.sizeBytes} were announced.`, 'corrupt')
  }
  if (target.sha256) {
    // After a 416 the loop ended without hashing what the server confirmed: the hash covers the partial.
    const digest = hash.digest('hex')
    if (digest !== target.sha256.toLowerCase()) {
      await rm(part, { force: true })
      throw new DownloadError(`The downloaded file's sha256 is ${digest.slice(0, 12)}…, not ${target.sha256.slice(0, 12)}… as the source says: it was damaged and is not used.`, 'corrupt')
    }
  }
  await rename(part, target.dest)
  await rm(statePath(target.dest), { force: true })
}

/**
 * Streams a body into the file and the hash, advancing `pos.offset` as bytes land. Writes go
 * in ~1 MB batches, up to four queued in order while reading goes on (a write awaited
 * before each read halves the throughput); a batch is hashed once it is written, so the hash
 * always covers exactly the partial's bytes.
 */
async function pump(response: Response, handle: FileHandle, hash: Hash, pos: { offset: number }, size: number, hooks: FileDownloadHooks): Promise<void> {
  const reader = response.body?.getReader()
  if (!reader) return
  let batch: Buffer[] = []
  let batched = 0
  let queued = pos.offset
  let inFlight: Promise<void> | undefined
  const queue: Array<Promise<void>> = []
  const flush = async () => {
    if (batched === 0) return
    const bufs = batch
    const length = batched
    batch = []
    batched = 0
    queued += length
    // Up to MAX_PENDING batches queued in order behind each other; reading waits only beyond that.
    if (queue.length >= MAX_PENDING) await queue.shift()
    // writev: the chunks as they came, no copy into one buffer.
    inFlight = (inFlight ?? Promise.resolve()).then(async () => {
      const { bytesWritten } = await handle.writev(bufs)
      if (bytesWritten !== length) throw new Error(`A write to the partial file stopped after ${bytesWritten} of ${length} bytes.`)
      for (const b of bufs) hash.update(b)
      pos.offset += length
      hooks.progress(pos.offset)
    })
    queue.push(inFlight)
    // Awaited at the next flush or at the end; never an unhandled rejection meanwhile.
    inFlight.catch(() => undefined)
  }
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      let chunk = Buffer.from(value.buffer, value.byteOffset, value.byteLength)
      if (queued + batched + chunk.length > size) chunk = chunk.subarray(0, size - queued - batched)
      batch.push(chunk)
      batched += chunk.length
      if (batched >= WRITE_BATCH) await flush()
      if (queued + batched >= size) break
    }
  } finally {
    // Whatever arrived before a drop is good data: keep it.
    try {
      await flush()
      await inFlight
    } finally {
      await reader.cancel().catch(() => undefined)
    }
  }
}

async function hashFile(path: string, hash: Hash): Promise<void> {
  for await (const chunk of createReadStream(path, { highWaterMark: WRITE_BATCH })) hash.update(chunk as Buffer)
}

async function readState(dest: string): Promise<PartState | undefined> {
  try {
    const parsed = JSON.parse(await readFile(statePath(dest), 'utf8')) as PartState
    return typeof parsed.sizeBytes === 'number' ? parsed : undefined
  } catch {
    // No state (or a torn one): the partial cannot be trusted.
    return undefined
  }
}

/** Removes a file's partial bytes and their state (a cancelled download). */
export async function removePartial(dest: string): Promise<void> {
  await rm(partPath(dest), { force: true })
  await rm(statePath(dest), { force: true })
}

/** Bytes of a file already on disk: whole, or partial. */
export async function bytesOnDisk(dest: string, sizeBytes: number): Promise<number> {
  const whole = await stat(dest).catch(() => undefined)
  if (whole && whole.size === sizeBytes) return sizeBytes
  return Math.min(sizeBytes, (await stat(partPath(dest)).catch(() => undefined))?.size ?? 0)
}

function httpError(status: number, url: string, headers: Headers): DownloadError {
  const code = headers.get('x-error-code')
  const file = decodeURIComponent(new URL(url).pathname.split('/').slice(-1)[0] ?? '')
  if (status === 404) return new DownloadError(`${file} was not found at the source (${code ?? '404'}): check the repository and file name.`, 'notFound', status)
  if (status === 401) {
    return new DownloadError(`This repository needs a Hugging Face token: it is gated or private. Accept its terms on huggingface.co, then ${HF_TOKEN_HINT}.`, 'unauthorized', status)
  }
  if (status === 403) {
    return new DownloadError('Your Hugging Face token has no access to this gated repository: accept its terms on the model page with the same account, then try again.', 'gated', status)
  }
  if (status >= 500 || status === 429) return new DownloadError(`The server answered ${status}.`, 'network', status)
  return new DownloadError(`The server answered ${status} for ${file}.`, 'http', status)
}

const isDiskFull = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code === 'ENOSPC' || (error as NodeJS.ErrnoException | undefined)?.code === 'EDQUOT'
const diskFull = (dest: string) =>
  new DownloadError(`The disk is full where models are saved (${dirname(dest)}). The bytes downloaded so far are kept: free some space and resume, or cancel to remove them.`, 'diskFull')

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error))
}

const delay = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => {
      clearTimeout(timer)
      reject(signal.reason as Error)
    }, { once: true })
  })
