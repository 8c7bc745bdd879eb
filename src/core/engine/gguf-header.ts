import { open, type FileHandle } from 'node:fs/promises'

/**
 * What the core needs from a GGUF file without loading the engine: that it is one, its
 * architecture, name, trained context length and the shapes that size its KV cache. Reads the
 * header and metadata only (a few MB at most for a large vocabulary), in chunks, so a 40 GB
 * file costs no more than a 1 MB one; tensor data is never read.
 */
export interface GgufHeader {
  version: number
  tensorCount: number
  architecture?: string
  name?: string
  /** `<arch>.context_length`: the context the model was trained for. */
  contextLength?: number
  blockCount?: number
  embeddingLength?: number
  headCount?: number
  headCountKv?: number
  /** `<arch>.attention.key_length` / value_length when given (else embedding / heads). */
  keyLength?: number
  valueLength?: number
  chatTemplate?: string
  /** Present when the file is one part of a split model (`split.count`). */
  splitCount?: number
  /** general.type: 'model', or 'mmproj' for a vision projector. */
  fileKind?: string
}

export class GgufFormatError extends Error {
  constructor(
    message: string,
    readonly reason: 'empty' | 'not-gguf' | 'truncated' | 'unsupported-version'
  ) {
    super(message)
    this.name = 'GgufFormatError'
  }
}

const CHUNK = 1 << 16
/** Enough for any real header (large vocabularies are ~8 MB); beyond it the file is not sane. */
const MAX_HEADER_BYTES = 256 * 1024 * 1024

class ChunkReader {
  private buf = Buffer.alloc(0)
  private bufStart = 0
  pos = 0
  constructor(private readonly fh: FileHandle, private readonly size: number) {}

  private async need(n: number): Promise<void> {
    const end = this.pos + n
    if (end > this.size || end > MAX_HEADER_BYTES) throw new GgufFormatError('The GGUF file ends inside its header (truncated or damaged).', 'truncated')
    if (end <= this.bufStart + this.buf.length && this.pos >= this.bufStart) return
    const want = Math.max(n, CHUNK)
    const chunk = Buffer.alloc(Math.min(want, this.size - this.pos))
    const { bytesRead } = await this.fh.read(chunk, 0, chunk.length, this.pos)
    if (bytesRead < n) throw new GgufFormatError('The GGUF file ends inside its header (truncated or damaged).', 'truncated')
    this.buf = chunk.subarray(0, bytesRead)
    this.bufStart = this.pos
  }
  private at(): number { return this.pos - this.bufStart }
  async u8(): Promise<number> { await this.need(1); const v = this.buf.readUInt8(this.at()); this.pos += 1; return v }
  async u32(): Promise<number> { await this.need(4); const v = this.buf.readUInt32LE(this.at()); this.pos += 4; return v }
  async i32(): Promise<number> { await this.need(4); const v = this.buf.readInt32LE(this.at()); this.pos += 4; return v }
  async f32(): Promise<number> { await this.need(4); const v = this.buf.readFloatLE(this.at()); this.pos += 4; return v }
  async f64(): Promise<number> { await this.need(8); const v = this.buf.readDoubleLE(this.at()); this.pos += 8; return v }
  async u64(): Promise<number> { await this.need(8); const v = this.buf.readBigUInt64LE(this.at()); this.pos += 8; return Number(v) }
  async i64(): Promise<number> { await this.need(8); const v = this.buf.readBigInt64LE(this.at()); this.pos += 8; return Number(v) }
  async string(): Promise<string> {
    const len = await this.u64()
    await this.need(len)
    const s = this.buf.toString('utf8', this.at(), this.at() + len)
    this.pos += len
    return s
  }
  skip(n: number): void {
    this.pos += n
    if (this.pos > this.size) throw new GgufFormatError('The GGUF file ends inside its header (truncated or damaged).', 'truncated')
  }
}

const FIXED_SIZE: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 }

async function readScalar(r: ChunkReader, type: number): Promise<unknown> {
  switch (type) {
    case 0: case 7: return r.u8()
    case 1: { const v = await r.u8(); return v > 127 ? v - 256 : v }
    case 2: case 3: r.skip(2); return undefined
    case 4: return r.u32()
    case 5: return r.i32()
    case 6: return r.f32()
    case 8: return r.string()
    case 10: return r.u64()
    case 11: return r.i64()
    case 12: return r.f64()
    default: throw new GgufFormatError(`Unknown GGUF value type ${type}.`, 'truncated')
  }
}

/** Reads a value; arrays are skipped (only their length is kept) since the core needs none of them. */
async function readValue(r: ChunkReader, type: number): Promise<unknown> {
  if (type !== 9) return readScalar(r, type)
  const itemType = await r.u32()
  const count = await r.u64()
  if (itemType === 8) {
    for (let i = 0; i < count; i++) r.skip(await r.u64())
  } else if (FIXED_SIZE[itemType] !== undefined) {
    r.skip(FIXED_SIZE[itemType]! * count)
  } else {
    throw new GgufFormatError(`Unsupported GGUF array of type ${itemType}.`, 'truncated')
  }
  return { arrayLength: count }
}

export async function readGgufHeader(path: string): Promise<GgufHeader> {
  const fh = await open(path, 'r')
  try {
    const { size } = await fh.stat()
    if (size === 0) throw new GgufFormatError('The file is empty (0 bytes): the download or copy did not finish.', 'empty')
    const r = new ChunkReader(fh, size)
    const magic = size >= 4 ? (await fh.read(Buffer.alloc(4), 0, 4, 0)).buffer.toString('latin1') : ''
    if (magic !== 'GGUF') throw new GgufFormatError('This is not a GGUF model file (it does not start with "GGUF").', 'not-gguf')
    r.skip(4)
    const version = await r.u32()
    if (version < 2 || version > 3) throw new GgufFormatError(`GGUF version ${version} is not supported (2 and 3 are).`, 'unsupported-version')
    const tensorCount = await r.u64()
    const kvCount = await r.u64()
    const kv = new Map<string, unknown>()
    for (let i = 0; i < kvCount; i++) {
      const key = await r.string()
      const type = await r.u32()
      kv.set(key, await readValue(r, type))
    }
    const arch = typeof kv.get('general.architecture') === 'string' ? (kv.get('general.architecture') as string) : undefined
    const num = (k: string): number | undefined => (typeof kv.get(k) === 'number' ? (kv.get(k) as number) : undefined)
    const str = (k: string): string | undefined => (typeof kv.get(k) === 'string' ? (kv.get(k) as string) : undefined)
    const header: GgufHeader = { version, tensorCount }
    const set = <K extends keyof GgufHeader>(k: K, v: GgufHeader[K] | undefined): void => { if (v !== undefined) header[k] = v }
    set('architecture', arch)
    set('name', str('general.name'))
    set('fileKind', str('general.type'))
    set('chatTemplate', str('tokenizer.chat_template'))
    set('splitCount', num('split.count'))
    if (arch) {
      set('contextLength', num(`${arch}.context_length`))
      set('blockCount', num(`${arch}.block_count`))
      set('embeddingLength', num(`${arch}.embedding_length`))
      set('headCount', num(`${arch}.attention.head_count`))
      set('headCountKv', num(`${arch}.attention.head_count_kv`))
      set('keyLength', num(`${arch}.attention.key_length`))
      set('valueLength', num(`${arch}.attention.value_length`))
    }
    return header
  } finally {
    await fh.close()
  }
}

/**
 * Bytes of KV cache (f16) for a context of `contextSize` tokens: 2 (K and V) × layers × context ×
 * KV width × 2 bytes. An estimate for the figures shown before a load; the engine reports the
 * real use once loaded.
 */
export function kvCacheBytes(h: GgufHeader, contextSize: number): number | undefined {
  if (!h.blockCount || !h.embeddingLength || !h.headCount) return undefined
  const headDim = h.embeddingLength / h.headCount
  const kvHeads = h.headCountKv ?? h.headCount
  const k = (h.keyLength ?? headDim) * kvHeads
  const v = (h.valueLength ?? headDim) * kvHeads
  return h.blockCount * contextSize * (k + v) * 2
}
