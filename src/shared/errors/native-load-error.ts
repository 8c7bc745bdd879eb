import type { AppError } from './app-error'

/** glibc versions in a loader message: `version 'GLIBC_2.34' not found`, `GLIBCXX_3.4.30`. */
const GLIBC_MISSING = /[`'"]?(GLIBC(?:XX)?_[\d.]+)[`'"]? not found/
const LIBSTDCXX = /GLIBCXX_/

/**
 * A native library that failed to load because the system's C library is older than the prebuilt
 * needs (SQLite's and the engine's prebuilds need glibc 2.34): as a message that names the system
 * requirement instead of a loader stack. `undefined` when the failure is something else.
 */
export function nativeLoadError(error: unknown, component: string): AppError | undefined {
  const text = error instanceof Error ? error.message : typeof error === 'string' ? error : ''
  const match = GLIBC_MISSING.exec(text)
  if (!match) return undefined
  const needed = match[1]!
  const library = LIBSTDCXX.test(needed) ? 'the C++ runtime (libstdc++)' : 'the C library (glibc)'
  return {
    errorType: 'UnsupportedSystem',
    status: 500,
    message:
      `${component} cannot start on this system: it needs ${needed} from ${library}, which this Linux does not have. ` +
      'Switchboard needs glibc 2.34 or newer (Ubuntu 22.04, Debian 12, Fedora 35, RHEL 9 or later). Your data was not touched.',
    detail: { needed }
  }
}
