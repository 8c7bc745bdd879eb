/**
 * The one place errors are logged from shared code (product.md §8: a status outside 200–599
 * is logged; image conversion failures are logged before they are rethrown). Core installs
 * its logger (src/core/log/logger.ts: levels, a rotating file, redaction) as the sink; until
 * then, and in the renderer, lines go to the console.
 */
type LogSink = (message: string, error?: unknown) => void

let sink: LogSink = (message, error) => {
  if (error === undefined) console.error(`[switchboard] ${message}`)
  else console.error(`[switchboard] ${message}`, error)
}

/** Core's logger takes over shared code's error lines. */
export function setLogSink(next: LogSink): void {
  sink = next
}

export function logError(message: string, error?: unknown): void {
  sink(message, error)
}
