import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { join } from 'node:path'
import { defaultDataDir } from '../core/store/data-dir'

export interface ServeOptions {
  host: string
  port: number
  /** Given with --token or SWITCHBOARD_TOKEN; otherwise the stored token of the data folder is used. */
  token?: string
  /** --new-token: replace the stored token (every address printed before stops working). */
  rotateToken: boolean
  password?: string
  /** Where the password came from; `--password` on the command line is visible in `ps`. */
  passwordSource?: 'argument' | 'environment' | 'file'
  /** Ask for the password on standard input (--password-prompt, or a terminal with --host and no password). */
  promptPassword: boolean
  /** Extra Host names the server may be reached under (a reverse proxy's name, a LAN DNS name). */
  allowedHosts: string[]
  /** Unlocks the encrypted key file used when no keychain answers (--key-passphrase-file, SWITCHBOARD_KEY_PASSPHRASE[_FILE]). */
  keyPassphrase?: string
  dataDir: string
  staticDir: string
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1'])

export const isLoopbackHost = (host: string) => LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host)

export const MIN_PASSWORD_LENGTH = 8

export { defaultDataDir }

const USAGE =
  'Options: --host H --port P --data-dir DIR --allowed-host NAME --new-token --token T ' +
  '--password-file FILE --password-prompt --password PW (or SWITCHBOARD_ACCESS_PASSWORD) --key-passphrase-file FILE (or SWITCHBOARD_KEY_PASSPHRASE)'
const SERVE_OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  password: { type: 'string' },
  'password-file': { type: 'string' },
  'password-prompt': { type: 'boolean' },
  'data-dir': { type: 'string' },
  'static-dir': { type: 'string' },
  token: { type: 'string' },
  'new-token': { type: 'boolean' },
  'allowed-host': { type: 'string', multiple: true },
  'key-passphrase-file': { type: 'string' }
} as const

/** `serve --help` or `-h` anywhere among the arguments: print SERVE_HELP instead of starting. */
export const wantsHelp = (argv: readonly string[]): boolean => argv.some((a) => a === '--help' || a === '-h')

/** What `serve --help` prints. */
export const SERVE_HELP = `Usage: npm run serve -- [options]   (or: node out/main/server.js [options], which restarts without rebuilding)

Runs Switchboard in a browser: prints an address with ?token=… to open (only that link signs a
browser in; the bare address does not).

  --port N                 port to listen on (default 5199; SWITCHBOARD_PORT)
  --host H                 address to bind (default 127.0.0.1; anything else needs a password)
  --data-dir DIR           data folder (default the app's; SWITCHBOARD_DATA_DIR)
  --password-file FILE     access password from a file (or SWITCHBOARD_ACCESS_PASSWORD, --password-prompt)
  --allowed-host NAME      a DNS name the server may be reached under (repeatable)
  --token T                the sign-in token (default: kept in the data folder); --new-token replaces it
  --key-passphrase-file F  passphrase of the encrypted key file used without a keychain
                           (or SWITCHBOARD_KEY_PASSPHRASE); keys also come from <PROVIDER>_API_KEY
  -h, --help               this text`

/**
 * Parses `npm run serve -- [--host H] [--port P] [--password-file F | --password-prompt] ...`.
 * Binding beyond loopback exposes the app to the network, so it needs a password.
 * Returns an error string that names the fix instead of throwing.
 */
export function parseServeArgs(argv: string[], env: NodeJS.ProcessEnv = process.env, stdinIsTTY = false): ServeOptions | { error: string } {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: typeof SERVE_OPTIONS; strict: true }>>
  try {
    parsed = parseArgs({ args: argv, options: SERVE_OPTIONS, strict: true })
  } catch (error) {
    const flag = /'([^' ]+)/.exec(error instanceof Error ? error.message : '')?.[1] ?? String(error)
    const missing = (error as { code?: string }).code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE'
    return { error: missing ? `${flag} needs a value.` : `Unknown option ${flag}. ${USAGE}` }
  }
  const values = new Map(Object.entries(parsed.values).filter((e): e is [string, string] => typeof e[1] === 'string'))
  const flags = new Set(Object.entries(parsed.values).filter(([, v]) => v === true).map(([k]) => `--${k}`))
  const allowedHosts = (parsed.values['allowed-host'] ?? []).flatMap((v) => v.split(',').map((h) => h.trim()).filter(Boolean))
  const host = values.get('host') ?? '127.0.0.1'
  const port = Number(values.get('port') ?? env['SWITCHBOARD_PORT'] ?? 5199)
  if (!Number.isInteger(port) || port < 0 || port > 65535) return { error: `--port must be a number from 0 to 65535, not ${values.get('port')}.` }

  let password: string | undefined
  let passwordSource: ServeOptions['passwordSource']
  const file = values.get('password-file')
  if (file !== undefined) {
    try {
      // One line; a trailing newline from `echo pw > file` is not part of the password.
      password = readFileSync(file, 'utf8').replace(/\r?\n$/, '')
      passwordSource = 'file'
    } catch (e) {
      return { error: `Cannot read the password file ${file}: ${(e as Error).message}` }
    }
  } else if (values.has('password')) {
    password = values.get('password')
    passwordSource = 'argument'
  } else if (env['SWITCHBOARD_ACCESS_PASSWORD']) {
    password = env['SWITCHBOARD_ACCESS_PASSWORD']
    passwordSource = 'environment'
  }
  const promptPassword = password === undefined && (flags.has('--password-prompt') || (!isLoopbackHost(host) && stdinIsTTY))
  if (!isLoopbackHost(host) && password === undefined && !promptPassword) {
    return {
      error: `Binding to ${host} makes Switchboard reachable from other devices; set an access password with --password-file FILE, --password-prompt or SWITCHBOARD_ACCESS_PASSWORD.`
    }
  }
  if (password !== undefined && password.length < MIN_PASSWORD_LENGTH) return { error: `The access password must have at least ${MIN_PASSWORD_LENGTH} characters.` }
  let keyPassphrase = env['SWITCHBOARD_KEY_PASSPHRASE'] || undefined
  const passphraseFile = values.get('key-passphrase-file') ?? (env['SWITCHBOARD_KEY_PASSPHRASE_FILE'] || undefined)
  if (passphraseFile !== undefined) {
    try {
      keyPassphrase = readFileSync(passphraseFile, 'utf8').replace(/\r?\n$/, '')
    } catch (e) {
      return { error: `Cannot read the key passphrase file ${passphraseFile}: ${(e as Error).message}` }
    }
  }
  const token = values.get('token') ?? (env['SWITCHBOARD_TOKEN'] || undefined)
  if (token !== undefined && token.length < 16) return { error: 'The token must have at least 16 characters.' }
  return {
    host,
    port,
    token,
    rotateToken: flags.has('--new-token'),
    password,
    passwordSource,
    promptPassword,
    allowedHosts,
    ...(keyPassphrase ? { keyPassphrase } : {}),
    dataDir: values.get('data-dir') ?? defaultDataDir(env),
    staticDir: values.get('static-dir') ?? join(import.meta.dirname, '../../out/renderer')
  }
}
