import { readFileSync } from 'node:fs'
import { ENGINE_LIBSTDCXX, nativeLoadError } from '../../shared/errors/native-load-error'
import { AppErrorException } from '../../shared/errors/app-error'

/** Where distributions keep the C++ runtime (Debian/Ubuntu multiarch, Fedora/RHEL lib64, Arch). */
const LIBSTDCXX_PATHS = ['/usr/lib/x86_64-linux-gnu/libstdc++.so.6', '/usr/lib/aarch64-linux-gnu/libstdc++.so.6', '/usr/lib64/libstdc++.so.6', '/lib64/libstdc++.so.6', '/usr/lib/libstdc++.so.6']

/**
 * Whether this Linux's libstdc++ offers a symbol version (its version strings are in the file):
 * true or false for the first library found, undefined when none is found or it cannot be read.
 */
export function libstdcxxOffers(version: string, paths: readonly string[] = LIBSTDCXX_PATHS, read: (path: string) => Buffer = readFileSync): boolean | undefined {
  for (const path of paths) {
    let bytes: Buffer
    try {
      bytes = read(path)
    } catch {
      continue
    }
    return bytes.includes(Buffer.from(`${version}\0`, 'latin1'))
  }
  return undefined
}

/**
 * The engine's runtime failing to load (getLlama): on a Linux whose libstdc++ is older than the
 * engine's build needs, the error says so and which systems have it, instead of node-llama-cpp's
 * NoBinaryFoundError (the loader's own message only reaches its log).
 */
export function engineSystemError(error: unknown, platform: NodeJS.Platform = process.platform, offers: (version: string) => boolean | undefined = libstdcxxOffers): unknown {
  if (platform !== 'linux') return error
  const named = nativeLoadError(error, 'The built-in engine')
  if (named) return new AppErrorException(named)
  if (offers(ENGINE_LIBSTDCXX) !== false) return error
  return new AppErrorException(nativeLoadError(new Error(`version '${ENGINE_LIBSTDCXX}' not found`), 'The built-in engine')!)
}
