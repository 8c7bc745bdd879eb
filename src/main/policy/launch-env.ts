/**
 * What the environment may change about the app. A packaged app trusts no variable that would
 * make it load other code: that is what the fuses (no ELECTRON_RUN_AS_NODE, no NODE_OPTIONS, no
 * inspector) are for, and these are the same kind of door one level up.
 */

/** The renderer's dev server (electron-vite dev): only in a checkout. Packaged, any address here would become the trusted origin with the whole bridge. */
export function devServerUrl(env: Record<string, string | undefined>, isPackaged: boolean): string | undefined {
  if (isPackaged) return undefined
  const url = env['ELECTRON_RENDERER_URL']
  if (!url) return undefined
  try {
    const parsed = new URL(url)
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? url : undefined
  } catch {
    return undefined
  }
}

/**
 * Variables that name code to load: the keychain addon loads whatever `.node` file
 * NAPI_RS_NATIVE_LIBRARY_PATH names (or a WASI build with NAPI_RS_FORCE_WASI); NODE_PATH adds
 * folders a missing optional package would be looked up in. NODE_OPTIONS is not here: the fuse
 * makes Electron ignore it, and the tool servers the app starts are the user's own programs.
 */
export const LOADER_ENV = ['NAPI_RS_NATIVE_LIBRARY_PATH', 'NAPI_RS_FORCE_WASI', 'NODE_PATH', 'ELECTRON_RENDERER_URL'] as const

/** The variables to remove before anything loads a native addon, in a packaged app (a checkout keeps them for development). */
export function loaderEnvToRemove(env: Record<string, string | undefined>, isPackaged: boolean): string[] {
  if (!isPackaged) return []
  return LOADER_ENV.filter((name) => env[name] !== undefined)
}
