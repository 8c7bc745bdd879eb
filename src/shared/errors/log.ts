/**
 * The one place errors are logged from shared and core code (product.md §8: a status outside
 * 200–599 is logged; image conversion failures are logged before they are rethrown). It writes
 * to the console, which the Electron main process, the browser-mode server and the CLI all keep.
 */
export function logError(message: string, error?: unknown): void {
  if (error === undefined) console.error(`[switchboard] ${message}`)
  else console.error(`[switchboard] ${message}`, error)
}
