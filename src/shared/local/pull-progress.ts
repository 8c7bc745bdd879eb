/**
 * One raw event of a model pull, as providers.md §4 describes it: the 'pulling manifest'
 * status is skipped; other statuses carry completed, digest, total, model; an abort ends
 * with status `cancelled`, any other failure with status `error` and the message.
 */
export type RawPullEvent =
  | { status: string; model: string; completed?: number; total?: number; digest?: string }
  | { status: 'cancelled' }
  | { status: 'error'; model: string; error: string }

/** The HTTP-like codes of the two failure endings (providers.md §4). */
export const PULL_CANCELLED_STATUS = 499
export const PULL_ERROR_STATUS = 500

export type PullPhase = 'starting' | 'downloading' | 'verifying' | 'writing' | 'success' | 'cancelled' | 'error'

export const isFinalPullPhase = (phase: PullPhase) => phase === 'success' || phase === 'cancelled' || phase === 'error'

export interface PullLayerProgress {
  digest: string
  completedBytes: number
  totalBytes: number
  /** Bytes that were already on disk when this pull reached the layer (a resumed download). */
  resumedBytes: number
  done: boolean
}

/** A pull as the UI shows it: aggregated over all layers, never going backwards. */
export interface PullSnapshot {
  id: string
  model: string
  baseUrl: string
  insecure: boolean
  phase: PullPhase
  /** The last status line from the server, verbatim ('pulling 6a0746a1ec1a', 'verifying sha256 digest'…). */
  status: string
  completedBytes: number
  totalBytes: number
  /** 0..1; monotonic during a pull, exactly 1 on success. */
  fraction: number
  bytesPerSecond: number
  /** Seconds left at the current speed; undefined while unknown. */
  etaSeconds?: number
  layers: PullLayerProgress[]
  /** The server already had part of this model (an earlier cancelled or failed pull). */
  resumed: boolean
  resumedBytes: number
  /** A previous pull of the same model in this session was cancelled or failed. */
  previousAttempt?: { phase: 'cancelled' | 'error'; completedBytes: number; at: number }
  disk?: { freeBytes: number; willNotFit: boolean }
  /** `notFound`: the registry has no model of that name (no point resuming). */
  error?: { errorType: string; message: string; status: number; notFound?: boolean }
  startedAt: number
  updatedAt: number
  finishedAt?: number
}
