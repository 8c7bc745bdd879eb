import type { AppError } from './app-error'

/** glibc versions in a loader message: `version 'GLIBC_2.34' not found`, `GLIBCXX_3.4.30`. */
const GLIBC_MISSING = /[`'"]?(GLIBC(?:XX)?_[\d.]+)[`'"]? not found/
const LIBSTDCXX = /GLIBCXX_/

/**
 * A native library that failed to load because the system's C library is older than the prebuilt
 * needs (SQLite's and the engine's prebuilds need glibc 2.34, the engine also GCC 12's libstdc++): as a message that names the system
 * requirement instead of a loader stack. `undefined` when the failure is something else.
 */
export function nativeLoadError(error: unknown, component: string): AppError | undefined {
  const text = error instanceof Error ? error.message : typeof error === 'string' ? error : ''
  const match = GLIBC_MISSING.exec(text)
  if (!match) return undefined
  const needed = match[1]!
  const cxx = LIBSTDCXX.test(needed)
  const library = cxx ? 'the C++ runtime (libstdc++)' : 'the C library (glibc)'
  return {
    errorType: 'UnsupportedSystem',
    status: 500,
    message: `${component} cannot start on this system: it needs ${needed} from ${library}, which this Linux does not have. ${cxx ? ENGINE_REQUIREMENT : APP_REQUIREMENT} Your data was not touched.`,
    detail: { needed }
  }
}

/**
 * What each part needs, measured on the prebuilds (objdump -T): SQLite's needs glibc 2.34 and
 * GLIBCXX_3.4.29 (GCC 11); the engine's libllama-common.so needs GLIBCXX_3.4.30 (GCC 12). RHEL 9
 * and Fedora 35 ship GCC 11's libstdc++: the app runs there, the built-in engine does not.
 */
export const APP_REQUIREMENT = 'Switchboard needs glibc 2.34 or newer (Ubuntu 22.04, Debian 12, Fedora 35, RHEL 9 or later).'
export const ENGINE_REQUIREMENT =
  'The built-in engine needs the C++ runtime of GCC 12 or newer (GLIBCXX_3.4.30: Ubuntu 22.04, Debian 12, Fedora 36, RHEL 10 or later); the rest of Switchboard runs without it.'
export const ENGINE_LIBSTDCXX = 'GLIBCXX_3.4.30'
