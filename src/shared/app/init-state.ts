/**
 * Initialisation of the local data and engine, in the spec's progress order
 * (product.md §4). We have no WebAssembly engine, so `loadingWasm` is never entered;
 * it stays in the type so the order stays the spec's.
 */
export const INIT_PROGRESS_ORDER = ['idle', 'initializing', 'loadingDependencies', 'loadingWasm', 'migrating', 'finished'] as const

export type InitPhase = (typeof INIT_PROGRESS_ORDER)[number] | 'ready' | 'error'

export interface InitState {
  phase: InitPhase
  /** A short, human reason; for `error` it names what went wrong and the fix. */
  detail?: string
  /** Notices the user should read once (a database restored from a backup, keys held in memory…). */
  notices?: string[]
  at: number
}

export const isTerminal = (phase: InitPhase) => phase === 'ready' || phase === 'error'
