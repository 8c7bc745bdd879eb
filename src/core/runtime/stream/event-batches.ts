/**
 * Events handed over in batches. Every layer of async iteration costs each event a promise
 * and a microtask, and a long reply read through the runtime, the model caller and the local
 * API passes four; a network read holds hundreds of chunks that are ready together. A layer
 * that can hand them over at once offers `nextBatch`; a consumer that can take them asks for
 * it, and everyone else iterates event by event as before (both may be mixed on one stream).
 */
export interface EventBatches<T, R = unknown> {
  /** The events ready now, in order (never an empty array), or the end. */
  nextBatch(): Promise<IteratorResult<T[], R>>
}

export const hasBatches = <T, R = unknown>(value: object): value is EventBatches<T, R> => typeof (value as Partial<EventBatches<T, R>>).nextBatch === 'function'

/** A source of chunks that can give, synchronously, the ones it has already read (the SSE decoder). */
export interface ReadyChunks<C> {
  /** The chunks already read and not handed out yet, possibly none; they are handed out by this call. */
  ready(): C[]
}

export const hasReady = <C>(value: object): value is ReadyChunks<C> => typeof (value as Partial<ReadyChunks<C>>).ready === 'function'
