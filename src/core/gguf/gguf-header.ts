import { open } from 'node:fs/promises'

/**
 * The metadata of a GGUF file, read from a prefix of its bytes. The header (magic, version,
 * key/value metadata, tensor table) comes before the weights, so the first few megabytes
 * say what the model is without downloading it: locally a read of the prefix, remotely an
 * HTTP Range request that grows when the metadata is longer (a 128k-token vocabulary alone
 * is ~2 MB of strings).
 */
export type GgufValue = number | bigint | boolean | string | GgufValue[] | { arrayLength: number; itemType: number }

export interface GgufHeader {
  version: number
  tensorCount: number
  metadata: Record<string, GgufValue>
  /** Bytes the header took, metadata included (tensor table too when it was read). */
  headerBytes: number
  /** Summed from the tensor table when it was in the prefix: bytes of the weights. */
  tensorBytes?: number
}

/** The prefix ended inside the header: read at least `needed` bytes and try again. */
export class GgufNeedMoreBytes extends Error {
  constructor(readonly needed: number) {
    super(`The GGUF header is longer than the bytes read; at least ${needed} bytes are needed.`)
  }
}

export type GgufProblem = 'empty' | 'not-gguf' | 'truncated' | 'unsupported-version' | 'damaged'

/** Not a usable GGUF file; `reason` lets a caller say what to do (the engine names it before loading). */
export class GgufFormatError extends Error {
  constructor(
    message: string,
    readonly reason: GgufProblem = 'damaged'
  ) {
    super(message)
    this.name = 'GgufFormatError'
  }
}

const T = { U8: 0, I8: 1, U16: 2, I16: 3, U32: 4, I32: 5, F32: 6, BOOL: 7, STRING: 8, ARRAY: 9, U64: 10, I64: 11, F64: 12 } as const
const FIXED_SIZE: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 }
/** Arrays longer than this keep only their length (a vocabulary is not worth holding). */
const MAX_KEPT_ARRAY = 64
/** A header claiming more than this is hostile or broken, not a model. */
const MAX_HEADER_BYTES = 256 * 1024 * 1024
const MAX_STRING = 64 * 1024 * 1024

/**
 * Bytes per block and elements per block of each ggml tensor type, for the weight size
 * from the tensor table (ggml.c's type traits).
 */
const GGML_BLOCK: Record<number, [bytes: number, elements: number]> = {
  0: [4, 1], 1: [2, 1], 2: [18, 32], 3: [20, 32], 6: [22, 32], 7: [24, 32], 8: [34, 32], 9: [36, 32],
  10: [84, 256], 11: [110, 256], 12: [144, 256], 13: [176, 256], 14: [210, 256], 15: [292, 256],
  16: [66, 256], 17: [74, 256], 18: [98, 256], 19: [50, 256], 20: [18, 32], 21: [110, 256], 22: [82, 256], 23: [136, 256],
  24: [1, 1], 25: [2, 1], 26: [4, 1], 27: [8, 1], 28: [8, 1], 29: [56, 256], 30: [2, 1]
}

class Cursor {
  offset = 0
  constructor(private readonly buf: Buffer) {}
  private need(n: number): void {
    if (this.offset + n > this.buf.length) {
      const needed = this.offset + n
      if (needed > MAX_HEADER_BYTES) throw new GgufFormatError('The GGUF header is larger than any real model header (256 MB): the file is damaged or not a model.')
      throw new GgufNeedMoreBytes(needed)
    }
  }
  u32(): number {
    this.need(4)
    const v = this.buf.readUInt32LE(this.offset)
    this.offset += 4
    return v
  }
  u64(): number {
    this.need(8)
    const v = this.buf.readBigUInt64LE(this.offset)
    this.offset += 8
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new GgufFormatError('A GGUF count is larger than any real file: the file is damaged.')
    return Number(v)
  }
  string(): string {
    const len = this.u64()
    if (len > MAX_STRING) throw new GgufFormatError('A GGUF string is longer than 64 MB: the file is damaged.')
    this.need(len)
    const s = this.buf.toString('utf8', this.offset, this.offset + len)
    this.offset += len
    return s
  }
  skip(n: number): void {
    this.need(n)
    this.offset += n
  }
  scalar(type: number): GgufValue {
    const size = FIXED_SIZE[type]
    if (size === undefined) throw new GgufFormatError(`Unknown GGUF value type ${type}.`)
    this.need(size)
    const b = this.buf
    const o = this.offset
    this.offset += size
    switch (type) {
      case T.U8: return b.readUInt8(o)
      case T.I8: return b.readInt8(o)
      case T.U16: return b.readUInt16LE(o)
      case T.I16: return b.readInt16LE(o)
      case T.U32: return b.readUInt32LE(o)
      case T.I32: return b.readInt32LE(o)
      case T.F32: return b.readFloatLE(o)
      case T.BOOL: return b.readUInt8(o) !== 0
      case T.U64: { const v = b.readBigUInt64LE(o); return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v }
      case T.I64: { const v = b.readBigInt64LE(o); return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(v) : v }
      default: return b.readDoubleLE(o)
    }
  }
  /** Passes over a value without decoding it (a 128k-token vocabulary's strings are not worth building). */
  skipValue(type: number, depth: number): void {
    if (type === T.STRING) {
      const len = this.u64()
      if (len > MAX_STRING) throw new GgufFormatError('A GGUF string is longer than 64 MB: the file is damaged.')
      return this.skip(len)
    }
    if (type !== T.ARRAY) {
      const size = FIXED_SIZE[type]
      if (size === undefined) throw new GgufFormatError(`Unknown GGUF value type ${type}.`)
      return this.skip(size)
    }
    if (depth > 4) throw new GgufFormatError('GGUF arrays nest too deep: the file is damaged.')
    const itemType = this.u32()
    const count = this.u64()
    const fixed = FIXED_SIZE[itemType]
    if (fixed !== undefined) this.skip(fixed * count)
    else for (let i = 0; i < count; i++) this.skipValue(itemType, depth + 1)
  }
  value(type: number, depth = 0): GgufValue {
    if (type === T.STRING) return this.string()
    if (type !== T.ARRAY) return this.scalar(type)
    if (depth > 4) throw new GgufFormatError('GGUF arrays nest too deep: the file is damaged.')
    const itemType = this.u32()
    const count = this.u64()
    if (count > MAX_KEPT_ARRAY) {
      const fixed = FIXED_SIZE[itemType]
      if (fixed !== undefined) this.skip(fixed * count)
      else for (let i = 0; i < count; i++) this.skipValue(itemType, depth + 1)
      return { arrayLength: count, itemType }
    }
    const out: GgufValue[] = []
    for (let i = 0; i < count; i++) out.push(this.value(itemType, depth + 1))
    return out
  }
}

/**
 * Parses a GGUF header from the start of a file. Throws GgufNeedMoreBytes when the prefix
 * is too short (read more and call again), GgufFormatError when it is not a GGUF file.
 * `withTensors` also walks the tensor table to sum the weights' bytes.
 */
export function parseGgufHeader(buf: Buffer, options: { withTensors?: boolean } = {}): GgufHeader {
  if (buf.length >= 4 && buf.toString('latin1', 0, 4) !== 'GGUF') {
    throw new GgufFormatError('This is not a GGUF model file (it does not start with "GGUF").', 'not-gguf')
  }
  const c = new Cursor(buf)
  c.skip(4)
  const version = c.u32()
  if (version < 2 || version > 3) throw new GgufFormatError(`GGUF version ${version} is not supported (2 and 3 are).`, 'unsupported-version')
  const tensorCount = c.u64()
  const kvCount = c.u64()
  if (kvCount > 1_000_000) throw new GgufFormatError('The GGUF header claims more than a million metadata keys: the file is damaged.')
  const metadata: Record<string, GgufValue> = {}
  for (let i = 0; i < kvCount; i++) {
    const key = c.string()
    const type = c.u32()
    metadata[key] = c.value(type)
  }
  const header: GgufHeader = { version, tensorCount, metadata, headerBytes: c.offset }
  if (options.withTensors) {
    let bytes = 0
    for (let i = 0; i < tensorCount; i++) {
      c.string()
      const dims = c.u32()
      if (dims > 8) throw new GgufFormatError('A GGUF tensor has more than 8 dimensions: the file is damaged.')
      let elements = 1
      for (let d = 0; d < dims; d++) elements *= c.u64()
      const type = c.u32()
      c.u64()
      const block = GGML_BLOCK[type]
      if (block) bytes += Math.ceil(elements / block[1]) * block[0]
    }
    header.tensorBytes = bytes
    header.headerBytes = c.offset
  }
  return header
}

const FIRST_READ = 2 * 1024 * 1024
/** A local read costs little more for more bytes: enough for a large vocabulary's header in one go. */
const LOCAL_FIRST_READ = 8 * 1024 * 1024

/** Grows the prefix (doubling, at least to what the parser asked for) until the header parses. */
export async function readGgufHeaderWith(read: (length: number) => Promise<Buffer>, options: { withTensors?: boolean; firstRead?: number } = {}): Promise<GgufHeader> {
  let length = options.firstRead ?? FIRST_READ
  for (;;) {
    const buf = await read(length)
    try {
      return parseGgufHeader(buf, options)
    } catch (error) {
      if (!(error instanceof GgufNeedMoreBytes)) throw error
      // Fewer bytes than asked: the file ends inside its own header.
      if (buf.length === 0) throw new GgufFormatError('The file is empty (0 bytes): the download or copy did not finish.', 'empty')
      if (buf.length < length) throw new GgufFormatError('The GGUF file ends inside its header (truncated or damaged).', 'truncated')
      length = Math.max(length * 2, error.needed)
    }
  }
}

/** Headers already read, by path with the size and modification time they were read at. */
const fileCache = new Map<string, { size: number; mtimeMs: number; header: GgufHeader }>()
const FILE_CACHE_ENTRIES = 256

/**
 * The header of a GGUF file on disk, read once: a file is read again only when its size or
 * modification time changed (a plan asked while the user types a context length, a page that
 * lists models, a load: one read). Growth reads only the bytes not read yet.
 */
export async function readGgufFile(path: string, options: { withTensors?: boolean } = {}): Promise<GgufHeader> {
  const handle = await open(path, 'r')
  try {
    const info = await handle.stat()
    const key = `${options.withTensors ? 't' : 'm'}:${path}`
    const cached = fileCache.get(key)
    if (cached && cached.size === info.size && cached.mtimeMs === info.mtimeMs) {
      // Most recently used last: the oldest leaves first when the cache is full.
      fileCache.delete(key)
      fileCache.set(key, cached)
      return cached.header
    }
    let have = Buffer.alloc(0)
    const header = await readGgufHeaderWith(async (length) => {
      if (length > have.length) {
        // Only the bytes read are used: no need to zero the rest.
        const more = Buffer.allocUnsafe(length - have.length)
        const { bytesRead } = await handle.read(more, 0, more.length, have.length)
        have = Buffer.concat([have, more.subarray(0, bytesRead)])
      }
      return have.subarray(0, length)
    }, { firstRead: LOCAL_FIRST_READ, ...options })
    fileCache.delete(key)
    fileCache.set(key, { size: info.size, mtimeMs: info.mtimeMs, header })
    if (fileCache.size > FILE_CACHE_ENTRIES) fileCache.delete(fileCache.keys().next().value!)
    return header
  } finally {
    await handle.close()
  }
}

/** Reads bytes `start`..`end` (inclusive) of a remote file; fewer at its end. */
export type RangeReader = (start: number, end: number) => Promise<Buffer>

/** A remote header past this is refused: the largest real vocabularies (256k tokens) need under 16 MB. */
export const MAX_REMOTE_HEADER_BYTES = 64 * 1024 * 1024

/**
 * The header of a remote GGUF file through HTTP Range requests of its first bytes. Each growth
 * asks only for the bytes not yet read (never from byte 0 again), and the prefix never grows past
 * `maxBytes`. A server that ignores Range would send the whole file: the body is cut off at the
 * asked length. `readRange` replaces the plain fetch (the model library's is bounded in time).
 */
export async function readGgufRemote(
  url: string,
  init: { fetch?: typeof fetch; headers?: Record<string, string>; signal?: AbortSignal; readRange?: RangeReader; maxBytes?: number } = {}
): Promise<GgufHeader> {
  const readRange = init.readRange ?? plainRangeReader(url, init)
  const maxBytes = init.maxBytes ?? MAX_REMOTE_HEADER_BYTES
  let have = Buffer.alloc(0)
  let ended = false
  return readGgufHeaderWith(async (length) => {
    if (length > maxBytes) throw new GgufFormatError(`The model's header is larger than ${Math.round(maxBytes / (1024 * 1024))} MB, more than any real model's: it was not read further.`)
    if (length > have.length && !ended) {
      const more = await readRange(have.length, length - 1)
      // A short answer is the end of the file.
      if (more.length < length - have.length) ended = true
      have = Buffer.concat([have, more.subarray(0, length - have.length)])
    }
    return have.subarray(0, length)
  })
}

function plainRangeReader(url: string, init: { fetch?: typeof fetch; headers?: Record<string, string>; signal?: AbortSignal }): RangeReader {
  const doFetch = init.fetch ?? fetch
  return async (start, end) => {
    const response = await doFetch(url, { headers: { ...init.headers, Range: `bytes=${start}-${end}` }, redirect: 'follow', signal: init.signal })
    if (!response.ok) throw new GgufRemoteError(response.status, url)
    // A 200 is the whole file from byte 0: skip what was already read.
    const body = await readAtMost(response, response.status === 206 ? end - start + 1 : end + 1)
    return response.status === 206 ? body : body.subarray(start)
  }
}

export class GgufRemoteError extends Error {
  constructor(readonly status: number, url: string) {
    super(`Reading the model's header failed: the server answered ${status} for ${new URL(url).pathname}.`)
  }
}

async function readAtMost(response: Response, length: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let total = 0
  const reader = response.body?.getReader()
  if (!reader) return Buffer.alloc(0)
  try {
    while (total < length) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(Buffer.from(value))
      total += value.byteLength
    }
  } finally {
    await reader.cancel().catch(() => undefined)
  }
  return Buffer.concat(chunks).subarray(0, length)
}

/** The facts the fit estimate needs, named once (llama.cpp's `<arch>.…` keys). */
export interface ModelShape {
  architecture: string
  name?: string
  blockCount: number
  embeddingLength: number
  headCount: number
  headCountKv: number
  /** Per head: keys and values may differ (key_length / value_length). */
  keyLength: number
  valueLength: number
  contextLength: number
  vocabSize: number
  fileType?: number
}

const num = (v: GgufValue | undefined): number | undefined => {
  if (typeof v === 'number') return v
  if (typeof v === 'bigint') return Number(v)
  // Some architectures give one head count per layer: the largest decides the memory.
  if (Array.isArray(v)) return Math.max(...v.map((x) => num(x) ?? 0))
  return undefined
}

export function modelShape(header: GgufHeader): ModelShape {
  const m = header.metadata
  const arch = typeof m['general.architecture'] === 'string' ? m['general.architecture'] : 'unknown'
  const get = (key: string) => num(m[`${arch}.${key}`])
  const embeddingLength = get('embedding_length') ?? 0
  const headCount = get('attention.head_count') ?? 0
  const headDim = headCount > 0 ? Math.floor(embeddingLength / headCount) : 0
  const tokens = m['tokenizer.ggml.tokens']
  const vocab = get('vocab_size') ?? (Array.isArray(tokens) ? tokens.length : typeof tokens === 'object' && tokens && 'arrayLength' in tokens ? tokens.arrayLength : 0)
  const shape: ModelShape = {
    architecture: arch,
    blockCount: get('block_count') ?? 0,
    embeddingLength,
    headCount,
    headCountKv: get('attention.head_count_kv') ?? headCount,
    keyLength: get('attention.key_length') ?? headDim,
    valueLength: get('attention.value_length') ?? headDim,
    contextLength: get('context_length') ?? 0,
    vocabSize: vocab
  }
  if (typeof m['general.name'] === 'string') shape.name = m['general.name']
  const ft = num(m['general.file_type'])
  if (ft !== undefined) shape.fileType = ft
  return shape
}
