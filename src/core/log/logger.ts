import { appendFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { setLogSink } from '../../shared/errors/log'
import { redactText } from '../../shared/errors/redact'

/**
 * The one logger of core, the server and the CLI: levels, the console for warnings and worse,
 * and (once a data folder is known) a rotating file `<dataDir>/logs/switchboard.log`. Every
 * line goes through the shared redaction (keys and key-shaped strings removed, URL hosts
 * masked) before it is written anywhere.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error'
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 }

export interface LogFileOptions {
  /** Rotate when the file would grow past this many bytes (default 1 MB). */
  maxBytes?: number
  /** Rotated files kept: switchboard.log.1 … .N (default 3). */
  keep?: number
  /** Lowest level written to the file (default info). */
  level?: LogLevel
  /** Also print warnings and errors on stderr (default true; tests turn it off). */
  console?: boolean
}

interface FileSink {
  path: string
  maxBytes: number
  keep: number
  level: LogLevel
}

let file: FileSink | undefined
let consoleOn = true
/** Exact secret values to remove besides the key shapes redactText knows (keys read at run time). */
const secrets = new Set<string>()

/**
 * Starts writing to `<dataDir>/logs/switchboard.log`; returns the file's path, or undefined
 * when the folder cannot be made (a read-only data folder: the start-up reports that itself,
 * and the log must not replace its error with another one — lines then go to the console only).
 */
export function configureLogFile(dataDir: string, options: LogFileOptions = {}): string | undefined {
  const dir = join(dataDir, 'logs')
  try {
    mkdirSync(dir, { recursive: true })
  } catch (error) {
    file = undefined
    console.error('[switchboard] cannot create the log folder; logging to the console only', (error as NodeJS.ErrnoException).code)
    return undefined
  }
  file = { path: join(dir, 'switchboard.log'), maxBytes: options.maxBytes ?? 1_000_000, keep: options.keep ?? 3, level: options.level ?? 'info' }
  consoleOn = options.console ?? true
  return file.path
}

/** Stops writing to the file (tests; a core that closes its data folder). */
export function closeLogFile(): void {
  file = undefined
  consoleOn = true
}

/** A secret that must never reach a log line verbatim (an API key the app just read). */
export function addLogSecret(value: string | undefined): void {
  if (value && value.length >= 4) secrets.add(value)
}

function describe(error: unknown): string {
  if (error === undefined) return ''
  if (error instanceof Error) return `${error.name}: ${error.message}${error.stack ? `\n${error.stack.split('\n').slice(1, 6).join('\n')}` : ''}`
  if (typeof error === 'object' && error && 'error' in error) {
    const inner = (error as { error?: { errorType?: string; message?: string } }).error
    if (inner?.message) return `${inner.errorType ?? 'Error'}: ${inner.message}`
  }
  try {
    return JSON.stringify(error)
  } catch {
    // A cyclic value: its string form is all we can say.
    return String(error)
  }
}

function rotate(sink: FileSink, incoming: number): void {
  let size = 0
  try {
    size = statSync(sink.path).size
  } catch {
    // No file yet: nothing to rotate.
    return
  }
  if (size + incoming <= sink.maxBytes) return
  rmSync(`${sink.path}.${sink.keep}`, { force: true })
  for (let i = sink.keep - 1; i >= 1; i--) if (existsSync(`${sink.path}.${i}`)) renameSync(`${sink.path}.${i}`, `${sink.path}.${i + 1}`)
  renameSync(sink.path, `${sink.path}.1`)
}

/** Writes one line: `2026-11-23T15:00:00.000Z WARN [scope] message: error`, redacted. */
export function log(level: LogLevel, scope: string, message: string, error?: unknown): void {
  const detail = describe(error)
  const text = redactText(`${message}${detail ? `: ${detail}` : ''}`, [...secrets])
  if (consoleOn && RANK[level] >= RANK.warn) console.error(`[switchboard] ${level.toUpperCase()} [${scope}] ${text}`)
  const sink = file
  if (!sink || RANK[level] < RANK[sink.level]) return
  const line = `${new Date().toISOString()} ${level.toUpperCase()} [${scope}] ${text}\n`
  try {
    rotate(sink, Buffer.byteLength(line))
    appendFileSync(sink.path, line, { mode: 0o600 })
  } catch (failure) {
    // The log must never fail the work it describes; say so once on the console.
    if (consoleOn) console.error('[switchboard] cannot write the log file', failure)
  }
}

export const logger = {
  debug: (scope: string, message: string, error?: unknown) => log('debug', scope, message, error),
  info: (scope: string, message: string, error?: unknown) => log('info', scope, message, error),
  warn: (scope: string, message: string, error?: unknown) => log('warn', scope, message, error),
  error: (scope: string, message: string, error?: unknown) => log('error', scope, message, error)
}

/**
 * For a failure that must not stop the work but must not vanish either:
 * `promise.catch(logged('pull', 'reading the disk space'))` resolves to undefined and logs.
 */
export const logged =
  (scope: string, what: string, level: LogLevel = 'warn') =>
  (error: unknown): undefined => {
    log(level, scope, `${what} failed`, error)
    return undefined
  }

// Shared code's logError (product.md §8 status logging, image conversion) goes through here too.
setLogSink((message, error) => log('error', 'shared', message, error))
