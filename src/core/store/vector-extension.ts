import { createRequire } from 'node:module'
import type BetterSqlite3 from 'better-sqlite3'

type SqliteDb = BetterSqlite3.Database

/**
 * sqlite-vec ships its loadable extension as one optional npm package per platform. Loading it
 * never fails the store: chats work without it; knowledge bases ask `requireVectors` and get a
 * message that names what is missing.
 */
const loaded = new WeakMap<SqliteDb, string | true>()

/** The extension's file; inside a packaged app it is read from app.asar.unpacked (electron-builder.yml). */
function extensionPath(): string {
  const require = createRequire(import.meta.url)
  const { getLoadablePath } = require('sqlite-vec') as { getLoadablePath(): string }
  return getLoadablePath().replace(/app\.asar([\\/])/, 'app.asar.unpacked$1')
}

/** Tries to load sqlite-vec into a connection; remembers why it failed. */
export function loadVectorExtension(sqlite: SqliteDb): void {
  if (loaded.has(sqlite)) return
  try {
    sqlite.loadExtension(extensionPath())
    loaded.set(sqlite, true)
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0]! : String(error)
    loaded.set(sqlite, reason)
  }
}

/** Throws a clear error when vector search is not available on this connection. */
export function requireVectors(sqlite: SqliteDb): void {
  loadVectorExtension(sqlite)
  const state = loaded.get(sqlite)
  if (state === true) return
  throw Object.assign(
    new Error(
      `Vector search is not available: the sqlite-vec extension for ${process.platform}-${process.arch} could not be loaded (${state}). ` +
        'Reinstall Switchboard; knowledge bases need it, everything else works without it.'
    ),
    { code: 'SB_NO_SQLITE_VEC' }
  )
}

/** For tests: pretend the extension failed to load on this connection. */
export function markVectorsMissing(sqlite: SqliteDb, reason: string): void {
  loaded.set(sqlite, reason)
}
