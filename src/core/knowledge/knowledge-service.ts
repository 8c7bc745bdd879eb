import { createHash, randomUUID } from 'node:crypto'
import { createReadStream, createWriteStream, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { AppErrorException, type AppError } from '../../shared/errors/app-error'
import { processRunning } from '../store/data-lock'
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../files/private-files'
import {
  DEFAULT_CHUNK_OVERLAP,
  DEFAULT_CHUNK_SIZE,
  type IndexEvent,
  type IndexRunResult,
  type KnowledgeBase,
  type KnowledgeBaseSummary,
  type KnowledgeFile,
  type SearchHit
} from '../../shared/knowledge/types'
import type { KnowledgeExport } from '../../shared/knowledge/export-schema'
import type { KnowledgeRepository } from '../store/repositories/knowledge'
import { Channel } from './channel'
import { chunkText } from './chunker'
import { embedWithBackoff, type EmbedFn } from './embedder'
import { extensionOf, extractForKnowledge, knowledgeFormat } from './extract'
import { walkFolder } from './folder-walk'
import { hybridSearch } from './retrieval'
import type { RerankFn, RerankModel } from './rerank'

export interface KnowledgeServiceDeps {
  repo: KnowledgeRepository
  dataDir: string
  /** Embeddings with a base's model (through EmbeddingService), logged under indexing or search. */
  embed(providerId: string, modelId: string, scene: 'Knowledge Base Indexing' | 'Knowledge Base Search'): EmbedFn
  /** Starts a task in the one stream hub; returns its id. */
  startStream(proc: string, run: (signal: AbortSignal) => AsyncIterator<unknown, unknown>, task?: { kind: 'knowledge'; meta: { kbId: string } }): string
  cancelStream(streamId: string): boolean
  batchSize?: number
  /** Largest file read (bytes). */
  maxFileBytes?: number
  /** Tests shorten Retry-After waits. */
  scaleWaitMs?(ms: number): number
  /** Tests slow indexing down to kill a process in the middle of it. */
  afterBatch?(): Promise<void>
  /** Reranking: each base's rerank model (kept in the settings table) and the call. */
  rerankModels?: { get(): Record<string, RerankModel>; set(next: Record<string, RerankModel>): void }
  rerank?: RerankFn
  /** The read-a-web-page tool with the user's address policy: a page as markdown. */
  readWebPage?(url: string, signal?: AbortSignal): Promise<{ title: string; url: string; markdown: string }>
}

const DEFAULT_BATCH = 64

/** The self-check's query: the first 24 words of a passage. */
const queryOf = (text: string): string | undefined => text.split(/\s+/).filter(Boolean).slice(0, 24).join(' ') || undefined
const DEFAULT_MAX_FILE = 512 * 1024 * 1024
const SELF_CHECK_TOP_K = 10

/** sha256 of bytes in 16 MB slices with a turn of the event loop between: hashing 500 MB at once would stall the core. */
async function sha256InSlices(bytes: Uint8Array): Promise<string> {
  const hash = createHash('sha256')
  const slice = 16 * 1024 * 1024
  for (let at = 0; at < bytes.length; at += slice) {
    hash.update(bytes.subarray(at, at + slice))
    if (at + slice < bytes.length) await new Promise((resolve) => setImmediate(resolve))
  }
  return hash.digest('hex')
}

const message = (error: unknown): string =>
  error instanceof AppErrorException ? error.error.message : error instanceof Error ? error.message : String(error)

const appError = (errorType: AppError['errorType'], text: string, status = 400): AppErrorException => new AppErrorException({ errorType, status, message: text } satisfies AppError)

export interface AddPathsResult {
  /** How many files were added (those that failed at once included: they are listed with why). */
  added: number
  /** Files in folders that are not a readable kind (images, archives…). */
  skipped: number
}

/**
 * Knowledge bases: files in, chunks and vectors out, hybrid retrieval back. Indexing is a task
 * of the stream hub per base (`knowledge.index`), one file at a time, resumable at chunk level:
 * vectors are saved per batch with the chunks, and a file becomes searchable only when all of
 * its chunks have one.
 */
export class KnowledgeService {
  private readonly running = new Map<string, { streamId: string; again: boolean }>()
  private readonly idleWaiters = new Map<string, (() => void)[]>()
  /** Stages of files being worked on now, not written to the database (see indexFile). */
  private readonly live = new Map<string, { status: KnowledgeFile['status']; stage: KnowledgeFile['stage'] }>()

  constructor(private readonly deps: KnowledgeServiceDeps) {}

  get repo(): KnowledgeRepository {
    return this.deps.repo
  }

  // Attachments (a reply's sources are stored with the reply, in its grounding)

  /** The bases attached to an agent or a conversation. */
  attached(owner: { kind: 'agent' | 'conversation'; id: string }): string[] {
    return this.repo.attached(owner)
  }

  /** The base, or the not-found error naming it. */
  require(kbId: string): KnowledgeBase {
    return this.repo.require(kbId)
  }

  setAttached(owner: { kind: 'agent' | 'conversation'; id: string }, kbIds: readonly string[]): string[] {
    return this.repo.setAttached(owner, kbIds)
  }

  // Bases

  list(): KnowledgeBaseSummary[] {
    const rerank = this.deps.rerankModels?.get() ?? {}
    return this.repo.list().map((kb) => (rerank[kb.id] ? { ...kb, rerank: rerank[kb.id] } : kb))
  }

  create(input: { name: string; description?: string; providerId: string; modelId: string; chunkSize?: number; chunkOverlap?: number }): KnowledgeBase {
    const name = input.name.trim()
    if (!name) throw appError('ValidationError', 'A knowledge base needs a name.')
    return this.repo.create({
      name,
      description: input.description ?? '',
      providerId: input.providerId,
      modelId: input.modelId,
      chunkSize: input.chunkSize ?? DEFAULT_CHUNK_SIZE,
      chunkOverlap: input.chunkOverlap ?? DEFAULT_CHUNK_OVERLAP
    })
  }

  /** Renames or changes settings. A new embedding model embeds everything again (with progress); new chunk settings chunk again. */
  update(id: string, patch: { name?: string; description?: string; providerId?: string; modelId?: string; chunkSize?: number; chunkOverlap?: number }): KnowledgeBase {
    const before = this.repo.require(id)
    if (patch.name !== undefined && !patch.name.trim()) throw appError('ValidationError', 'A knowledge base needs a name.')
    const next = this.repo.update(id, { ...patch, ...(patch.name ? { name: patch.name.trim() } : {}) })
    const modelChanged = next.providerId !== before.providerId || next.modelId !== before.modelId
    const chunkingChanged = next.chunkSize !== before.chunkSize || next.chunkOverlap !== before.chunkOverlap
    if (modelChanged || chunkingChanged) {
      this.stop(id)
      if (modelChanged) this.repo.resetEmbeddings(id)
      if (chunkingChanged) for (const f of this.repo.files(id)) if (f.path) this.repo.requeue(f.id)
      this.schedule(id)
    }
    return next
  }

  async delete(id: string): Promise<boolean> {
    this.stop(id)
    const files = this.repo.files(id)
    if (this.rerankModelOf([id])) this.setRerankModel(id, undefined)
    const deleted = this.repo.delete(id)
    for (const f of files) await this.dropStoredFile(f)
    return deleted
  }

  files(kbId: string): KnowledgeFile[] {
    this.repo.require(kbId)
    return this.repo.files(kbId).map((f) => {
      const live = this.live.get(f.id)
      return live ? { ...f, ...live } : f
    })
  }

  // Adding files

  private storedPath(sha256: string, name: string): string {
    const ext = extensionOf(name).replace(/[^a-z0-9]/g, '').slice(0, 10)
    return `knowledge/${sha256}${ext ? `.${ext}` : ''}`
  }

  /** Keeps bytes under the data folder by their hash (written aside, then renamed: never half a file). */
  private async store(bytes: Uint8Array, name: string): Promise<{ sha256: string; path: string }> {
    const sha256 = createHash('sha256').update(bytes).digest('hex')
    const path = this.storedPath(sha256, name)
    const full = join(this.deps.dataDir, path)
    const exists = await stat(full).then((s) => s.size === bytes.length, () => false)
    if (!exists) {
      ensurePrivateDir(join(this.deps.dataDir, 'knowledge'))
      const tmp = `${full}.${process.pid}.tmp`
      await writeFile(tmp, bytes, { mode: PRIVATE_FILE_MODE })
      await rename(tmp, full)
    }
    return { sha256, path }
  }

  /**
   * A file on disk copied aside under the data folder and hashed in one streamed pass, so a file
   * of hundreds of MB is never whole in memory here (a 200 MB PDF). The copy is named
   * by its hash only once `keep` is called, after the caller has checked the file did not change.
   */
  private async storeFrom(filePath: string): Promise<{ sha256: string; size: number; keep(name: string): Promise<string>; drop(): Promise<void> }> {
    const dir = join(this.deps.dataDir, 'knowledge')
    // Owner only, as the rest of the data folder: these are copies of the user's documents.
    ensurePrivateDir(dir)
    const tmp = join(dir, `.incoming-${process.pid}-${randomUUID()}.tmp`)
    const hash = createHash('sha256')
    let size = 0
    try {
      await pipeline(
        createReadStream(filePath),
        new Transform({
          transform(chunk: Buffer, _encoding, done) {
            hash.update(chunk)
            size += chunk.length
            done(null, chunk)
          }
        }),
        createWriteStream(tmp, { mode: PRIVATE_FILE_MODE })
      )
    } catch (error) {
      await rm(tmp, { force: true })
      throw error
    }
    const sha256 = hash.digest('hex')
    return {
      sha256,
      size,
      keep: async (name) => {
        const path = this.storedPath(sha256, name)
        const full = join(this.deps.dataDir, path)
        if (await stat(full).then((s) => s.size === size, () => false)) await rm(tmp, { force: true })
        else await rename(tmp, full)
        return path
      },
      drop: () => rm(tmp, { force: true })
    }
  }

  private failed(kbId: string, name: string, source: string, reason: string, size = 0): KnowledgeFile {
    return this.repo.addFile({ kbId, name, source, path: null, sha256: null, size, status: 'Error', stage: 'failed', error: reason })
  }

  /** Why a file of this name and size is refused before it is read, or undefined. */
  private refusal(name: string, size: number): string | undefined {
    const max = this.deps.maxFileBytes ?? DEFAULT_MAX_FILE
    if (!knowledgeFormat(name)) return 'This kind of file is not supported (text, Markdown, code, PDF, DOCX and HTML are).'
    if (size === 0) return 'The file is empty.'
    if (size > max) return `The file is ${Math.round(size / 1e6)} MB; the largest a knowledge base reads is ${Math.round(max / 1e6)} MB.`
    return undefined
  }

  /** A stored copy becomes a Pending file; the same content twice is one file. */
  private register(kbId: string, name: string, source: string, stored: { sha256: string; path: string }, size: number): KnowledgeFile {
    const existing = this.repo.fileBySha(kbId, stored.sha256)
    if (existing) return existing
    const file = this.repo.addFile({ kbId, name, source, path: stored.path, sha256: stored.sha256, size, status: 'Pending', stage: 'queued' })
    this.schedule(kbId)
    return file
  }

  /** Adds bytes (an upload, a web page, an import) as a Pending file; the same content twice is one file. */
  async addBytes(kbId: string, name: string, bytes: Uint8Array, source = `upload:${name}`): Promise<KnowledgeFile> {
    this.repo.require(kbId)
    const refused = this.refusal(name, bytes.length)
    if (refused) return this.failed(kbId, name, source, refused, bytes.length)
    return this.register(kbId, name, source, await this.store(bytes, name), bytes.length)
  }

  /**
   * A web page: read with the read-a-web-page tool (its URL policy: http(s) only, no
   * private addresses unless allowed), kept as a Markdown file whose source is the page's address.
   */
  async addUrl(kbId: string, url: string, signal?: AbortSignal): Promise<KnowledgeFile> {
    this.repo.require(kbId)
    if (!this.deps.readWebPage) throw appError('CapabilityNotSupported', 'Web pages cannot be read here.')
    const page = await this.deps.readWebPage(url, signal)
    // A file name on every system: no path separators, reserved or control characters.
    const title = [...page.title].map((c) => (c < ' ' || '\\/:*?"<>|'.includes(c) ? ' ' : c)).join('').replace(/\s+/g, ' ').trim().slice(0, 120) || new URL(page.url).host
    return this.addBytes(kbId, `${title}.md`, Buffer.from(`# ${page.title}\n\n<${page.url}>\n\n${page.markdown}\n`, 'utf8'), page.url)
  }

  /**
   * A file on this machine: read once, streamed (hashed while it is copied under the data folder),
   * with its size and time checked again after, so a file being written is caught.
   */
  async addFile(kbId: string, filePath: string, as: { name?: string; source?: string } = {}): Promise<KnowledgeFile> {
    this.repo.require(kbId)
    const name = as.name ?? basename(filePath)
    const source = as.source ?? filePath
    const unreadable = (error: unknown, size = 0) => this.failed(kbId, name, source, `The file could not be opened (${(error as { code?: string }).code ?? message(error)}).`, size)
    let before
    try {
      before = await stat(filePath)
    } catch (error) {
      return unreadable(error)
    }
    const refused = this.refusal(name, before.size)
    if (refused) return this.failed(kbId, name, source, refused, before.size)
    let copy
    try {
      copy = await this.storeFrom(filePath)
    } catch (error) {
      return unreadable(error, before.size)
    }
    const after = await stat(filePath).catch(() => undefined)
    if (!after || after.size !== before.size || after.mtimeMs !== before.mtimeMs || copy.size !== after.size) {
      await copy.drop()
      return this.failed(kbId, name, source, 'The file changed while it was being read. Process it again once it is saved.', after?.size ?? copy.size)
    }
    return this.register(kbId, name, source, { sha256: copy.sha256, path: await copy.keep(name) }, copy.size)
  }

  /**
   * Files and folders (recursively, with include/exclude globs). Unsupported files inside folders
   * are skipped and counted. Returns counts, not the records: a folder of 10,000 files must not
   * hold 10,000 records while it is walked (the files list has them); `onAdded` sees each one.
   */
  async addPaths(
    kbId: string,
    paths: readonly string[],
    patterns: { include?: string[]; exclude?: string[] } = {},
    onAdded?: (file: KnowledgeFile) => void
  ): Promise<AddPathsResult> {
    this.repo.require(kbId)
    let added = 0
    let skipped = 0
    const add = async (path: string) => {
      const file = await this.addFile(kbId, path)
      added++
      onAdded?.(file)
    }
    for (const p of paths) {
      const info = await stat(p).catch(() => undefined)
      if (info?.isDirectory()) {
        for await (const file of walkFolder(p, patterns)) {
          if (!knowledgeFormat(file)) {
            skipped++
            continue
          }
          await add(file)
        }
      } else await add(p)
    }
    return { added, skipped }
  }

  async removeFile(fileId: string): Promise<boolean> {
    const file = this.repo.deleteFile(fileId)
    if (!file) return false
    await this.dropStoredFile(file)
    return true
  }

  private async dropStoredFile(file: KnowledgeFile): Promise<void> {
    if (!file.path || !file.sha256 || this.repo.shaUsers(file.sha256) > 0) return
    await rm(join(this.deps.dataDir, file.path), { force: true })
  }

  /** Process again: a failed or flagged file is chunked and embedded from scratch. */
  retry(fileId: string): KnowledgeFile {
    const file = this.repo.requireFile(fileId)
    if (!file.path) throw appError('ValidationError', `${file.name} was never read; add it again.`)
    const again = this.repo.requeue(fileId)
    this.schedule(file.kbId)
    return again
  }

  // Indexing

  /** Starts indexing every base with waiting files (after start-up: what a crash interrupted). */
  resume(): void {
    this.sweepAside()
    for (const kbId of new Set(this.repo.pending().map((f) => f.kbId))) this.schedule(kbId)
  }

  /**
   * Copies written aside by a process that died while adding a file (`.incoming-<pid>-….tmp`,
   * `<sha256>.<ext>.<pid>.tmp`) are removed: a crash in the middle of copying a 500 MB file must
   * not leave 500 MB behind. Another live process's (the CLI next to the app) are its own.
   */
  private sweepAside(): void {
    const dir = join(this.deps.dataDir, 'knowledge')
    let names: string[]
    try {
      names = readdirSync(dir)
    } catch {
      return
    }
    for (const name of names) {
      const pid = Number((/^\.incoming-(\d+)-.*\.tmp$/.exec(name) ?? /\.(\d+)\.tmp$/.exec(name))?.[1])
      if (pid && !processRunning(pid)) rmSync(join(dir, name), { force: true })
    }
  }

  schedule(kbId: string): void {
    const running = this.running.get(kbId)
    if (running) {
      running.again = true
      return
    }
    const entry = { streamId: '', again: false }
    this.running.set(kbId, entry)
    entry.streamId = this.deps.startStream('knowledge.index', (signal) => this.indexRun(kbId, signal)[Symbol.asyncIterator](), { kind: 'knowledge', meta: { kbId } })
  }

  private stop(kbId: string): void {
    const running = this.running.get(kbId)
    if (running) this.deps.cancelStream(running.streamId)
  }

  /** Resolves when the base has nothing left to index (tests, the CLI). */
  idle(kbId: string): Promise<void> {
    if (!this.running.has(kbId)) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.set(kbId, [...(this.idleWaiters.get(kbId) ?? []), resolve]))
  }

  private async *indexRun(kbId: string, signal: AbortSignal): AsyncGenerator<IndexEvent, IndexRunResult> {
    const channel = new Channel<IndexEvent>()
    const result: IndexRunResult = { kbId, succeeded: 0, failed: 0, flagged: 0 }
    const work = (async () => {
      try {
        for (;;) {
          const entry = this.running.get(kbId)
          if (entry) entry.again = false
          const next = this.repo.pending(kbId)[0]
          if (!next || signal.aborted) {
            if (entry?.again && !signal.aborted) continue
            break
          }
          const file = await this.indexFile(next, signal, (e) => channel.push(e))
          if (signal.aborted) break
          if (file?.status === 'Success') result.succeeded++
          if (file?.status === 'Error') result.failed++
          if (file?.flagged) result.flagged++
        }
      } finally {
        this.running.delete(kbId)
        for (const resolve of this.idleWaiters.get(kbId) ?? []) resolve()
        this.idleWaiters.delete(kbId)
        channel.push({ type: 'idle', kbId })
        channel.close()
      }
    })()
    yield* channel.drain()
    await work
    return result
  }

  private async indexFile(start: KnowledgeFile, signal: AbortSignal, emit: (e: IndexEvent) => void): Promise<KnowledgeFile | undefined> {
    const kb = this.repo.require(start.kbId)
    // Every write is a commit, fsync'd (synchronous FULL), and costs more than the work around
    // it; so the passing stages (reading, chunking, embedding…) live in memory (`live`, which
    // `files()` overlays) and only what must survive a crash is written: the chunks, each batch
    // of vectors, and the end (published, checked and done in one transaction).
    const show = (patch: { status?: KnowledgeFile['status']; stage?: KnowledgeFile['stage'] }) => {
      const f = this.repo.getFile(start.id)
      if (!f) return undefined
      const live = { status: patch.status ?? this.live.get(start.id)?.status ?? f.status, stage: patch.stage ?? this.live.get(start.id)?.stage ?? f.stage }
      this.live.set(start.id, live)
      const shown = { ...f, ...live }
      emit({ type: 'file', file: shown })
      return shown
    }
    const end = (patch: Parameters<KnowledgeRepository['setState']>[1]) => {
      this.live.delete(start.id)
      if (!this.repo.getFile(start.id)) return undefined
      const f = this.repo.setState(start.id, patch)
      emit({ type: 'file', file: f })
      return f
    }
    const embed = this.deps.embed(kb.providerId, kb.modelId, 'Knowledge Base Indexing')
    const batchSize = this.deps.batchSize ?? DEFAULT_BATCH
    const backoff = {
      signal,
      ...(this.deps.scaleWaitMs ? { scaleWaitMs: this.deps.scaleWaitMs } : {}),
      onWait: (ms: number, reason: string) => {
        show({ stage: 'waiting' })
        emit({ type: 'waiting', kbId: kb.id, fileId: start.id, retryInMs: ms, reason })
      }
    }
    try {
      show({ status: 'Processing', stage: this.repo.isChunked(start.id) ? 'embedding' : 'reading' })
      if (!this.repo.isChunked(start.id)) {
        const bytes = await readFile(join(this.deps.dataDir, start.path!))
        if ((await sha256InSlices(bytes)) !== start.sha256) throw new Error('The stored copy of this file is damaged; add the file again.')
        // Handed over: nothing reads `bytes` after this, so PDF.js takes them instead of a copy.
        const { text, markdown } = await extractForKnowledge(bytes, start.name, { handOver: true })
        show({ stage: 'chunking' })
        const chunks = chunkText(text, { size: kb.chunkSize, overlap: kb.chunkOverlap, markdown })
        if (chunks.length === 0) throw new Error('The file has no text to index.')
        show({ stage: 'embedding' })
        if (chunks.length <= batchSize) {
          // A file that fits one batch is chunked, embedded, published and checked in one
          // commit; a crash before it only means this one batch is sent again.
          const query = queryOf(chunks[Math.floor(chunks.length / 2)]!.text)
          const vectors = await embedWithBackoff(embed, query ? [...chunks.map((c) => c.text), query] : chunks.map((c) => c.text), backoff)
          const current = this.repo.getFile(start.id)
          if (!current) return undefined
          this.live.delete(start.id)
          const done = this.repo.finishWhole(current, chunks, vectors.slice(0, chunks.length), kb.modelId, () =>
            this.selfCheck(kb, start.id, query, query ? vectors[chunks.length] : undefined)
          )
          emit({ type: 'file', file: done })
          return done
        }
        const current = this.repo.getFile(start.id)
        if (!current) return undefined
        this.repo.saveChunks(current, chunks)
      }
      for (;;) {
        if (signal.aborted) return undefined
        const batch = this.repo.unembedded(start.id, batchSize + 1)
        const last = batch.length <= batchSize
        const texts = batch.slice(0, batchSize).map((c) => c.text)
        // The self-check query rides with the last batch: no extra request, and the file is
        // published, checked and marked done in one commit.
        const query = last ? this.selfCheckQuery(start.id) : undefined
        const vectors = texts.length || query ? await embedWithBackoff(embed, query ? [...texts, query] : texts, backoff) : []
        if (!this.repo.getFile(start.id)) return undefined
        const saved = texts.map((_, i) => ({ id: batch[i]!.id, vector: vectors[i]! }))
        if (!last) {
          this.repo.saveEmbeddings(kb.id, start.id, saved, kb.modelId)
          show({ stage: 'embedding' })
          await this.deps.afterBatch?.()
          continue
        }
        const queryVector = query ? vectors[texts.length] : undefined
        this.live.delete(start.id)
        const done = this.repo.finish(kb.id, start.id, saved, kb.modelId, () => this.selfCheck(kb, start.id, query, queryVector))
        emit({ type: 'file', file: done })
        await this.deps.afterBatch?.()
        return done
      }
    } catch (error) {
      this.live.delete(start.id)
      if (signal.aborted) {
        // Stopped (shutdown, model change): it stays queued and resumes where it was.
        if (this.repo.getFile(start.id)) this.repo.setState(start.id, { status: 'Pending', stage: 'queued' })
        return undefined
      }
      return end({ status: 'Error', stage: 'failed', error: message(error) })
    }
  }

  /** A query built from the file's own text: the start of its middle chunk. */
  private selfCheckQuery(fileId: string): string | undefined {
    const chunks = this.repo.fileChunks(fileId)
    const middle = chunks[Math.floor(chunks.length / 2)]
    return middle ? queryOf(middle.text) : undefined
  }

  /**
   * Runs inside the publishing transaction: retrieval with the file's own passage must find the
   * file. Returns why it is flagged, or null. The failure this catches: "embedding complete" but
   * the file never comes back (wrong model, empty vectors, a mangled text).
   */
  private selfCheck(kb: KnowledgeBase, fileId: string, query: string | undefined, vector: readonly number[] | undefined): string | null {
    if (!query) return null
    const vectors = new Map<string, readonly number[]>(vector && vector.length === this.repo.require(kb.id).dimensions ? [[kb.id, vector]] : [])
    const hits = hybridSearch(this.repo, { kbIds: [kb.id], text: query, vectors, topK: SELF_CHECK_TOP_K })
    return hits.some((h) => h.fileId === fileId)
      ? null
      : `A search for a passage of this file did not find it among the top ${SELF_CHECK_TOP_K}: its text may be near-identical to other files, or the embedding model may not suit it.`
  }

  // Retrieval

  async search(input: { kbIds: readonly string[]; query: string; topK?: number }, signal?: AbortSignal): Promise<SearchHit[]> {
    const kbs = input.kbIds.map((id) => this.repo.require(id))
    const vectors = new Map<string, readonly number[]>()
    const byModel = new Map<string, KnowledgeBase[]>()
    for (const kb of kbs) if (kb.dimensions) byModel.set(`${kb.providerId}\u0000${kb.modelId}`, [...(byModel.get(`${kb.providerId}\u0000${kb.modelId}`) ?? []), kb])
    for (const group of byModel.values()) {
      const kb = group[0]!
      const [vector] = await embedWithBackoff(this.deps.embed(kb.providerId, kb.modelId, 'Knowledge Base Search'), [input.query], {
        signal: signal ?? new AbortController().signal,
        maxAttempts: 3,
        onWait: () => undefined,
        ...(this.deps.scaleWaitMs ? { scaleWaitMs: this.deps.scaleWaitMs } : {})
      })
      for (const k of group) if (vector?.length === k.dimensions) vectors.set(k.id, vector)
    }
    const topK = input.topK ?? 8
    const model = this.rerankModelOf(kbs.map((k) => k.id))
    if (!model || !this.deps.rerank) return hybridSearch(this.repo, { kbIds: kbs.map((k) => k.id), text: input.query, vectors, topK })
    // Reranking: the fused list's head (3× what is wanted) re-scored by the rerank model.
    const fused = hybridSearch(this.repo, { kbIds: kbs.map((k) => k.id), text: input.query, vectors, topK: Math.max(topK * 3, 20) })
    if (fused.length < 2) return fused.slice(0, topK)
    try {
      const scores = await this.deps.rerank(model, input.query, fused.map((h) => h.text), topK, signal)
      const ranked = scores.map((s) => ({ ...fused[s.index]!, rerankScore: s.score }))
      this.lastRerankError = undefined
      // Whatever the model left out keeps its fused order after the reranked ones.
      const taken = new Set(scores.map((s) => s.index))
      return [...ranked, ...fused.filter((_, i) => !taken.has(i))].slice(0, topK)
    } catch (error) {
      // A rerank failure costs the ordering, not the answer: the fused order is used.
      if (signal?.aborted) throw error
      this.lastRerankError = message(error)
      return fused.slice(0, topK)
    }
  }

  /** Why the last rerank failed (shown on the base's page); cleared by a success or a new choice. */
  lastRerankError?: string

  /** The rerank model of the first of these bases that has one. */
  rerankModelOf(kbIds: readonly string[]): RerankModel | undefined {
    const all = this.deps.rerankModels?.get() ?? {}
    for (const id of kbIds) if (all[id]) return all[id]
    return undefined
  }

  /** Chooses (or with undefined removes) a base's rerank model. */
  setRerankModel(kbId: string, model: RerankModel | undefined): RerankModel | undefined {
    this.repo.require(kbId)
    if (!this.deps.rerankModels) throw appError('CapabilityNotSupported', 'Reranking is not available here.')
    const next = { ...this.deps.rerankModels.get() }
    if (model) next[kbId] = model
    else delete next[kbId]
    this.deps.rerankModels.set(next)
    this.lastRerankError = undefined
    return model
  }

  // Export and import

  /** Every base with its files' bytes and attachments (chunks and vectors are rebuilt on import). */
  exportBases(): KnowledgeExport[] {
    return [...this.exportBasesOneByOne()]
  }

  /** One base at a time (its files' bytes read then), so a streamed export holds one in memory. */
  *exportBasesOneByOne(): Generator<KnowledgeExport> {
    for (const kb of this.repo.list())
      yield {
      id: kb.id,
      name: kb.name,
      description: kb.description,
      providerId: kb.providerId,
      modelId: kb.modelId,
      chunkSize: kb.chunkSize,
      chunkOverlap: kb.chunkOverlap,
      files: this.repo
        .files(kb.id)
        .filter((f) => f.path && existsSync(join(this.deps.dataDir, f.path)))
        .map((f) => ({ name: f.name, source: f.source, dataBase64: readFileSync(join(this.deps.dataDir, f.path!)).toString('base64') })),
      attachedTo: this.repo.attachmentsOf(kb.id)
    }
  }

  /** Adds the bases an export carries; a base whose id exists is kept as it is (import never overwrites). */
  async importBases(bases: readonly KnowledgeExport[]): Promise<number> {
    let added = 0
    for (const b of bases) {
      if (this.repo.get(b.id)) continue
      this.repo.create({ id: b.id, name: b.name, description: b.description, providerId: b.providerId, modelId: b.modelId, chunkSize: b.chunkSize, chunkOverlap: b.chunkOverlap })
      for (const f of b.files) await this.addBytes(b.id, f.name, Buffer.from(f.dataBase64, 'base64'), f.source)
      for (const owner of b.attachedTo) this.repo.setAttached(owner, [...this.repo.attached(owner), b.id])
      added++
    }
    return added
  }

  close(): void {
    for (const kbId of this.running.keys()) this.stop(kbId)
  }
}
