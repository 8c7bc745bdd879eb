import type { AppError, Result } from '../errors/app-error'

/**
 * The wire protocol shared by every transport (Electron IPC, WebSocket, in-process).
 * Messages are plain JSON-able objects. `id` numbers requests of one client session;
 * `sid` names a stream owned by the core, which outlives any one subscriber.
 */
export type ClientMessage =
  | { t: 'call'; id: number; proc: string; input: unknown }
  /** Start a stream and subscribe to it. */
  | { t: 'start'; id: number; proc: string; input: unknown }
  /** Subscribe to a running (or recently finished) stream from event `from` on. */
  | { t: 'attach'; id: number; sid: string; from: number }
  /** Stop receiving events; the stream keeps running in the core. */
  | { t: 'detach'; id: number }
  /** Abort the stream in the core. */
  | { t: 'cancel'; sid: string }
  /** Browser mode with an access password: authenticate this connection. */
  | { t: 'auth'; id: number; password?: string; sessionKey?: string }

export type ServerMessage =
  | { t: 'result'; id: number; result: Result<unknown> }
  /** The stream a `start` created, or the one an `attach` joined. */
  | { t: 'started'; id: number; sid: string }
  /** Events `from`, `from + 1`, … of the subscription `id` (batched for throughput). */
  | { t: 'events'; id: number; from: number; events: unknown[] }
  /** The stream ended; `result` is its return value or its error. */
  | { t: 'end'; id: number; result: Result<unknown> }
  /** The subscription could not be made (validation, unknown stream…). */
  | { t: 'refused'; id: number; error: AppError }
  | { t: 'auth'; id: number; result: Result<{ sessionKey: string }> }

/** One end of a message channel; a transport adapts IPC or a socket to this. */
export interface MessagePort<In, Out> {
  send(message: Out): void
  onMessage(listener: (message: In) => void): () => void
  /** Called when the channel closes for good (socket closed, window gone). */
  onClose?(listener: () => void): () => void
}

export const IPC_CHANNEL = 'switchboard:bridge'
