import { modelShape, readGgufFile, type GgufValue, type ModelShape } from '../gguf/gguf-header'

export { GgufFormatError } from '../gguf/gguf-header'

/**
 * What the engine needs from a GGUF file before loading it: that it is one, its architecture,
 * name, trained context length and the shapes that size its KV cache. Read by the one GGUF
 * reader (`src/core/gguf/gguf-header.ts`, shared with the model library): the header only,
 * in a few reads however large the file, tensor data never.
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
  /** What the memory estimate needs (the same reading the model library makes). */
  shape: ModelShape
}

export async function readGgufHeader(path: string): Promise<GgufHeader> {
  const raw = await readGgufFile(path)
  const { version, tensorCount, metadata } = raw
  const str = (k: string): string | undefined => (typeof metadata[k] === 'string' ? (metadata[k] as string) : undefined)
  const num = (k: string): number | undefined => scalarNumber(metadata[k])
  const header: GgufHeader = { version, tensorCount, shape: modelShape(raw) }
  const set = <K extends keyof GgufHeader>(k: K, v: GgufHeader[K] | undefined): void => {
    if (v !== undefined) header[k] = v
  }
  const arch = str('general.architecture')
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
}

const scalarNumber = (v: GgufValue | undefined): number | undefined => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : undefined)

