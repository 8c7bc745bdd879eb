import type { FitFigures, FitVerdict } from '../../shared/models-library/types'
import type { ModelShape } from './gguf-header'

/**
 * Memory a GGUF model needs once loaded, from its header and its file size. The formula is
 * documented in docs/models-library.md (keep the two in step):
 *
 *   weights   = the GGUF file's bytes (all parts of a split model); llama.cpp maps them as is
 *   kv cache  = n_ctx × n_layers × n_kv_heads × (key_length + value_length) × 2 bytes (f16)
 *   compute   = 4 bytes × n_ubatch × (n_vocab + 4 × n_embd + n_ctx × n_heads)
 *   overhead  = 256 MiB fixed (runtime, context, graph) + compute
 *   total     = weights + kv cache + overhead
 *
 * Verdict against the memory available (free RAM, plus free VRAM where the engine reports
 * a GPU): fits when total ≤ 85 % of it, tight when ≤ 100 %, otherwise does not fit.
 */
export const FIXED_OVERHEAD_BYTES = 256 * 1024 * 1024
export const UBATCH = 512
export const KV_BYTES_PER_ELEMENT = 2
export const FITS_SHARE = 0.85
/** Contexts are offered in steps of this many tokens. */
export const CONTEXT_STEP = 256

export interface MemoryAvailable {
  freeRamBytes: number
  /** Free VRAM where the engine reports a GPU; layers offloaded there do not use RAM. */
  freeVramBytes?: number
  /** The built-in engine's memory budget: a model may use no more than this, however much is free. */
  budgetBytes?: number
}

/** What a model may use: the free memory, at most the engine's budget. */
export const availableBytes = (memory: MemoryAvailable): number => Math.min(memory.freeRamBytes + (memory.freeVramBytes ?? 0), memory.budgetBytes ?? Number.POSITIVE_INFINITY)

/** KV-cache bytes for one token of context. */
export const kvBytesPerToken = (s: ModelShape) => s.blockCount * s.headCountKv * (s.keyLength + s.valueLength) * KV_BYTES_PER_ELEMENT

/** Compute-buffer bytes: a part per batch, a part that grows with the context (the attention scores). */
const computeFixed = (s: ModelShape) => 4 * UBATCH * (s.vocabSize + 4 * s.embeddingLength)
const computePerToken = (s: ModelShape) => 4 * UBATCH * s.headCount

export function estimateMemory(shape: ModelShape, weightsBytes: number, contextTokens: number, memory: MemoryAvailable): FitFigures {
  const ctx = Math.max(1, Math.floor(contextTokens))
  const kvCacheBytes = ctx * kvBytesPerToken(shape)
  const overheadBytes = FIXED_OVERHEAD_BYTES + computeFixed(shape) + ctx * computePerToken(shape)
  const totalBytes = weightsBytes + kvCacheBytes + overheadBytes
  const available = availableBytes(memory)
  const verdict: FitVerdict = totalBytes <= FITS_SHARE * available ? 'fits' : totalBytes <= available ? 'tight' : 'doesNotFit'
  return { contextTokens: ctx, weightsBytes, kvCacheBytes, overheadBytes, totalBytes, availableBytes: available, verdict, maxContextThatFits: maxContext(shape, weightsBytes, memory) }
}

/** Solves total(ctx) ≤ 85 % of available for ctx (total is linear in ctx). */
export function maxContext(shape: ModelShape, weightsBytes: number, memory: MemoryAvailable): number {
  const budget = FITS_SHARE * availableBytes(memory)
  const fixed = weightsBytes + FIXED_OVERHEAD_BYTES + computeFixed(shape)
  const perToken = kvBytesPerToken(shape) + computePerToken(shape)
  if (budget <= fixed || perToken <= 0) return 0
  const limit = shape.contextLength > 0 ? shape.contextLength : Number.MAX_SAFE_INTEGER
  const ctx = Math.min(limit, Math.floor((budget - fixed) / perToken))
  return ctx >= limit ? limit : Math.floor(ctx / CONTEXT_STEP) * CONTEXT_STEP
}

/** The largest default context: a 128k-token KV cache is rarely wanted and costs gigabytes. */
export const DEFAULT_CONTEXT_CAP = 8192
/** The context assumed for a GGUF that does not say what it was trained for. */
export const FALLBACK_CONTEXT = 4096
/** The default never goes below this (a model with less room than that is refused with the figures instead). */
export const MIN_DEFAULT_CONTEXT = 1024

/** The context a model would want with memory to spare: its trained one, at most the cap. */
export const wantedContext = (shape: ModelShape): number => Math.min(shape.contextLength > 0 ? shape.contextLength : FALLBACK_CONTEXT, DEFAULT_CONTEXT_CAP)

/**
 * The one default context, for the library's fit and the engine's load alike: the largest that
 * fits the memory available (free memory, at most the engine's budget) divided among the
 * engine's parallel slots, capped by what the model wants (its trained context, at most
 * DEFAULT_CONTEXT_CAP), in steps of CONTEXT_STEP. Per slot; the engine's context holds `slots` of them.
 */
export function defaultContext(shape: ModelShape, weightsBytes: number, memory: MemoryAvailable, slots = 1): number {
  const wanted = wantedContext(shape)
  const fits = maxContext({ ...shape, contextLength: 0 }, weightsBytes, memory)
  const perSlot = Math.floor(fits / Math.max(1, slots) / CONTEXT_STEP) * CONTEXT_STEP
  return Math.max(Math.min(wanted, MIN_DEFAULT_CONTEXT), Math.min(wanted, perSlot))
}

/**
 * Quantisations from best to worst quality. Above Q8_0 the quality gain is not worth twice
 * the memory, so the recommendation never goes higher.
 */
export const QUANT_QUALITY = [
  'F32', 'BF16', 'F16', 'Q8_0', 'Q6_K', 'Q5_K_M', 'Q5_K_S', 'Q5_1', 'Q5_0', 'Q4_K_M', 'IQ4_NL', 'Q4_K_S', 'IQ4_XS', 'Q4_1', 'Q4_0',
  'Q3_K_L', 'Q3_K_M', 'IQ3_M', 'IQ3_S', 'Q3_K_S', 'IQ3_XS', 'IQ3_XXS', 'Q2_K', 'Q2_K_S', 'IQ2_M', 'IQ2_S', 'IQ2_XS', 'IQ2_XXS', 'IQ1_M', 'IQ1_S'
] as const
const HIGHEST_RECOMMENDED = QUANT_QUALITY.indexOf('Q8_0')

export function quantRank(quant: string | undefined): number {
  const i = quant ? (QUANT_QUALITY as readonly string[]).indexOf(quant.toUpperCase()) : -1
  return i === -1 ? QUANT_QUALITY.length : i
}

/**
 * The best quantisation that fits at the context: highest quality at or below Q8_0 whose
 * verdict is "fits"; else the smallest "tight" one; undefined when none can load.
 */
export function recommendQuant<T extends { quant?: string; sizeBytes: number }>(
  files: readonly T[],
  shape: ModelShape,
  contextTokens: number,
  memory: MemoryAvailable
): T | undefined {
  const ranked = files
    .filter((f) => quantRank(f.quant) >= HIGHEST_RECOMMENDED && quantRank(f.quant) < QUANT_QUALITY.length)
    .sort((a, b) => quantRank(a.quant) - quantRank(b.quant))
  const fit = ranked.find((f) => estimateMemory(shape, f.sizeBytes, contextTokens, memory).verdict === 'fits')
  if (fit) return fit
  const tight = ranked.filter((f) => estimateMemory(shape, f.sizeBytes, contextTokens, memory).verdict === 'tight')
  return tight.sort((a, b) => a.sizeBytes - b.sizeBytes)[0]
}

/** The built-in engine serves this many requests of one model at once when the memory allows. */
export const MAX_SLOTS = 2
/** A slot is worth its memory only with at least this much context (or the model's whole, if less). */
export const MIN_SLOT_CONTEXT = 2048

/**
 * How a model loads by default: how many parallel slots (each request has one), the context of
 * each, and their total (what the memory holds, and the context every fit is judged at).
 */
export function contextPlan(shape: ModelShape, weightsBytes: number, memory: MemoryAvailable): { slots: number; perSlot: number; total: number } {
  for (let slots = MAX_SLOTS; slots > 1; slots--) {
    const perSlot = defaultContext(shape, weightsBytes, memory, slots)
    if (perSlot >= Math.min(wantedContext(shape), MIN_SLOT_CONTEXT) && estimateMemory(shape, weightsBytes, perSlot * slots, memory).verdict === 'fits') return { slots, perSlot, total: perSlot * slots }
  }
  const perSlot = defaultContext(shape, weightsBytes, memory, 1)
  return { slots: 1, perSlot, total: perSlot }
}

/** Slots for a context the user chose: as many as fit beside it, at least one. */
export function slotsFor(shape: ModelShape, weightsBytes: number, perSlot: number, memory: MemoryAvailable): number {
  for (let slots = MAX_SLOTS; slots > 1; slots--) if (estimateMemory(shape, weightsBytes, perSlot * slots, memory).verdict === 'fits') return slots
  return 1
}
