import { AppErrorException } from '../../shared/errors/app-error'

/**
 * Who is on the other end of the bridge, as far as what it may make the host do.
 *
 * - `host`: the desktop window, the CLI, a test in the same process: the person at this machine.
 * - `browser`: browser mode on loopback behind the token: the same person, in a browser tab,
 *   which can upload and download but has no file dialog of the host.
 * - `remote`: browser mode with an access password: anyone who has the password, from any
 *   device that reaches the server. They may use the app, never widen what the host runs or reads.
 *
 * A core in browser mode is reached only through the browser server, so its mode and access
 * policy say which of these every caller is.
 */
/** What says who calls: the core's mode and its browser-mode access policy (the context has both). */
export interface CallerEnv {
  mode: 'desktop' | 'browser' | 'test'
  access?: { password?: string } | undefined
}

export type ClientReach = 'host' | 'browser' | 'remote'

export const clientReach = (ctx: CallerEnv): ClientReach => {
  if (ctx.mode !== 'browser') return 'host'
  return ctx.access?.password ? 'remote' : 'browser'
}

const refused = (message: string, status = 403) => new AppErrorException({ errorType: 'ValidationError', status, message })

export const HOST_PATHS_REFUSED = 'In browser mode, upload the file instead of giving a path on the server.'
export const PROGRAMS_REFUSED =
  'With an access password, browser mode does not start programs on the host: add an HTTP server here, or add this one from the desktop app or a loopback browser session.'
export const PRIVATE_ADDRESSES_REFUSED =
  'With an access password, browser mode cannot let tools read private or local addresses of the host’s network: turn this on from the desktop app or a loopback browser session.'

/**
 * Whether a built-in model may be named by its .gguf path on the host (`builtin/<path>`): the
 * desktop and the CLI only; everyone else reaches the listed models by name, whatever procedure
 * takes the model (the engine applies it where it resolves every name).
 */
export const mayNameHostPaths = (ctx: CallerEnv): boolean => clientReach(ctx) === 'host'

/** Paths on the host (import and export files, knowledge folders): the desktop and the CLI only. */
export function refuseHostPaths(ctx: CallerEnv): void {
  if (clientReach(ctx) !== 'host') throw refused(HOST_PATHS_REFUSED, 400)
}

/** Tool servers that are programs the core starts (stdio): not for a remote client. */
export function refuseProgramServers(ctx: CallerEnv, servers: readonly { transport?: string }[]): void {
  if (clientReach(ctx) === 'remote' && servers.some((s) => s.transport === 'stdio')) throw refused(PROGRAMS_REFUSED)
}

/** Tool settings that widen what the host reaches (private addresses): not for a remote client. */
export function refuseWideningToolSettings(ctx: CallerEnv, patch: { allowPrivateAddresses?: boolean }): void {
  if (clientReach(ctx) === 'remote' && patch.allowPrivateAddresses === true) throw refused(PRIVATE_ADDRESSES_REFUSED)
}

export const DOWNLOAD_ADDRESSES_REFUSED =
  'With an access password, browser mode cannot change where the host downloads models from (the hub mirror, the Ollama registry, the proxy): it would point the host at an address of its network. Change it from the desktop app or a loopback browser session.'

/** Where the host downloads from (the model library's hub mirror, registry and proxy): not for a remote client. */
export function refuseDownloadAddresses(ctx: CallerEnv, patch: Record<string, unknown>, keys: readonly string[]): void {
  if (clientReach(ctx) === 'remote' && keys.some((k) => patch[k] !== undefined)) throw refused(DOWNLOAD_ADDRESSES_REFUSED)
}
