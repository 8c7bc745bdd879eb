import type { PullLayerProgress } from '../local/pull-progress'

/** Where a model comes from: a Hugging Face repository file, or an Ollama registry name. */
export type ModelSource = { kind: 'hf'; repo: string; file: string; revision?: string } | { kind: 'ollama'; name: string; tag: string }

export type FitVerdict = 'fits' | 'tight' | 'doesNotFit'

/** A memory estimate for one model file at one context (computed by the core's fit estimate). */
export interface FitFigures {
  contextTokens: number
  weightsBytes: number
  kvCacheBytes: number
  overheadBytes: number
  totalBytes: number
  availableBytes: number
  verdict: FitVerdict
  /** The largest context (a multiple of 256, at most the model's own) that still fits; 0 when none does. */
  maxContextThatFits: number
}

/** One search hit: a Hugging Face repository, an Ollama library model, or a model on disk. */
export interface LibraryEntry {
  source: 'hf' | 'ollama' | 'disk'
  id: string
  name: string
  downloads?: number
  likes?: number
  updatedAt?: string
  license?: string
  /** false, 'auto' or 'manual' as the hub says; gated repositories need a token. */
  gated?: false | 'auto' | 'manual' | true
  /** On disk: the file, and which app owns it (deleting another app's file is refused unless confirmed). */
  path?: string
  owner?: 'switchboard' | 'ollama' | 'lmstudio' | 'user'
  sizeBytes?: number
}

/** One downloadable GGUF model of a repository, with its fit where the header was read. */
export interface LibraryFile {
  path: string
  quant?: string
  sizeBytes: number
  parts: number
  projector: boolean
  sha256?: string
  fit?: FitFigures
  recommended?: boolean
}

export interface RepoDetails {
  repo: string
  files: LibraryFile[]
  /** The model's shape from one file's header (all quantisations share it). */
  shape?: { architecture: string; blockCount: number; embeddingLength: number; headCount: number; headCountKv: number; contextLength: number }
  contextTokens: number
  memory: { freeRamBytes: number; freeVramBytes?: number }
  headerError?: string
}

export type DownloadPhase = 'queued' | 'checking' | 'downloading' | 'verifying' | 'paused' | 'success' | 'cancelled' | 'error'

export const isFinalDownloadPhase = (p: DownloadPhase) => p === 'success' || p === 'cancelled' || p === 'error'

/** A download as the UI and the CLI show it: aggregated over its files, never going backwards. */
export interface DownloadSnapshot {
  id: string
  /** `hf:owner/repo:file` or `ollama:name:tag`: what the user asked for. */
  ref: string
  source: ModelSource
  phase: DownloadPhase
  completedBytes: number
  totalBytes: number
  /** 0..1; monotonic during a download, exactly 1 on success. */
  fraction: number
  bytesPerSecond: number
  etaSeconds?: number
  files: PullLayerProgress[]
  /** Bytes that were already on disk when this run started (a resume). */
  resumedBytes: number
  resumed: boolean
  /** What happened on the way that the user should know ("the server ignored Range, the file started over"). */
  notes: string[]
  /** The model's main file once downloaded (the first part of a split model). */
  path?: string
  disk?: { path: string; freeBytes: number }
  error?: { code: string; message: string }
  startedAt: number
  updatedAt: number
  finishedAt?: number
}

/** One model of the curated list the app offers for a first offline chat (`catalogue/recommended-models.json`). */
export interface RecommendedModel {
  id: string
  name: string
  parameters: string
  repo: string
  file: string
  quant: string
  /** The file's size as the hub's file list reports it. */
  sizeBytes: number
  license: string
  /** One line on what it is good at (English; the renderer shows its translation by id). */
  goodAt: string
  /** What to download: `hf:<repo>:<file>`. */
  ref: string
  /** The built-in engine's id for it once downloaded. */
  builtinId: string
  /** The memory it needs at the context it would load with, against this machine's free memory. */
  fit: FitFigures
  /** Where it already is, when it has been downloaded. */
  path?: string
}

export interface RecommendedList {
  models: RecommendedModel[]
  /** True when no model of the list fits this machine's free memory (the smallest one's figure is in `models[0].fit`). */
  noneFits: boolean
  memory: { freeRamBytes: number; freeVramBytes?: number }
}
