import { parseArgs } from 'node:util'
import { randomBytes } from 'node:crypto'
import { homedir } from 'node:os'
import { join } from 'node:path'

export interface ServeOptions {
  host: string
  port: number
  token: string
  password?: string
  dataDir: string
  staticDir: string
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1'])

export const isLoopbackHost = (host: string) => LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host)

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (env['SWITCHBOARD_DATA_DIR']) return env['SWITCHBOARD_DATA_DIR']
  const home = homedir()
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'Switchboard', 'data')
  if (platform === 'win32') return join(env['APPDATA'] ?? join(home, 'AppData', 'Roaming'), 'Switchboard', 'data')
  return join(env['XDG_CONFIG_HOME'] ?? join(home, '.config'), 'Switchboard', 'data')
}

const SERVE_OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  password: { type: 'string' },
  'data-dir': { type: 'string' },
  'static-dir': { type: 'string' },
  token: { type: 'string' }
} as const

/**
 * Parses `npm run serve -- [--host H] [--port P] [--password PW] [--data-dir D]`.
 * Binding beyond loopback exposes the app to the network, so it needs a password.
 * Returns an error string that names the fix instead of throwing.
 */
export function parseServeArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): ServeOptions | { error: string } {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: typeof SERVE_OPTIONS; strict: true }>>
  try {
    parsed = parseArgs({ args: argv, options: SERVE_OPTIONS, strict: true })
  } catch (error) {
    const flag = /'([^' ]+)/.exec(error instanceof Error ? error.message : '')?.[1] ?? String(error)
    const missing = (error as { code?: string }).code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE'
    return { error: missing ? `${flag} needs a value.` : `Unknown option ${flag}. Options: --host H --port P --password PW --data-dir DIR` }
  }
  const values = new Map(Object.entries(parsed.values).filter((e): e is [string, string] => typeof e[1] === 'string'))
  const host = values.get('host') ?? '127.0.0.1'
  const port = Number(values.get('port') ?? env['SWITCHBOARD_PORT'] ?? 5199)
  if (!Number.isInteger(port) || port < 0 || port > 65535) return { error: `--port must be a number from 0 to 65535, not ${values.get('port')}.` }
  const password = values.get('password') ?? env['SWITCHBOARD_ACCESS_PASSWORD'] ?? undefined
  if (!isLoopbackHost(host) && !password) {
    return {
      error: `Binding to ${host} makes Switchboard reachable from other devices; set an access password with --password (or SWITCHBOARD_ACCESS_PASSWORD).`
    }
  }
  if (password !== undefined && password.length < 8) return { error: 'The access password must have at least 8 characters.' }
  const token = values.get('token') ?? env['SWITCHBOARD_TOKEN'] ?? randomBytes(24).toString('base64url')
  if (token.length < 16) return { error: 'The token must have at least 16 characters.' }
  return {
    host,
    port,
    token,
    password,
    dataDir: values.get('data-dir') ?? defaultDataDir(env),
    staticDir: values.get('static-dir') ?? join(import.meta.dirname, '../../out/renderer')
  }
}
