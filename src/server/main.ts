import { join } from 'node:path'
import { createCore } from '../core'
import { lockDataFolderOrExit } from './data-folder-lock'
import { MIN_PASSWORD_LENGTH, parseServeArgs, SERVE_HELP, wantsHelp } from './options'
import { promptPassword } from './password-prompt'
import { startBrowserServer } from './server'
import { loadOrCreateToken } from './token-store'

// `npm run serve`: Switchboard in a browser. The core runs here in Node; the page talks to it
// over a WebSocket on the same origin.
if (wantsHelp(process.argv.slice(2))) {
  console.log(SERVE_HELP)
  process.exit(0)
}
const options = parseServeArgs(process.argv.slice(2), process.env, process.stdin.isTTY === true)
if ('error' in options) {
  console.error(options.error)
  process.exit(2)
}

// One owner per data folder: refuse before anything opens it if another Switchboard holds it.
const dataLock = lockDataFolderOrExit(options.dataDir, 'browser mode (npm run serve)')

let password = options.password
if (options.promptPassword) {
  // No terminal to ask (or Ctrl-C): treated as no password, which the next line refuses with a message.
  password = await promptPassword('Access password: ').catch(() => undefined)
  if (!password || password.length < MIN_PASSWORD_LENGTH) {
    console.error(`The access password must have at least ${MIN_PASSWORD_LENGTH} characters.`)
    dataLock.release()
    process.exit(2)
  }
}
if (options.passwordSource === 'argument') {
  console.warn('Note: --password is visible to other users of this machine (ps). Prefer --password-file, --password-prompt or SWITCHBOARD_ACCESS_PASSWORD.')
}

const core = createCore({
  dataDir: options.dataDir,
  mode: 'browser',
  // Without a keychain (a headless server) keys come from <PROVIDER>_API_KEY, or from the
  // encrypted key file when a passphrase is given.
  keyEnv: process.env,
  secrets: { keyFile: { path: join(options.dataDir, 'keys.enc'), ...(options.keyPassphrase ? { passphrase: options.keyPassphrase } : {}) } },
  access: password ? { password, sessionKeys: new Set() } : undefined
})

let close: () => Promise<void> = async () => undefined
const shutdown = async () => {
  await close()
  await core.close()
  dataLock.release()
  process.exit(0)
}
// Before the "running" line: whoever reads it may stop us at once, and must not skip the clean-up.
process.on('SIGINT', () => void shutdown())
process.on('SIGTERM', () => void shutdown())

const token = options.token ?? loadOrCreateToken(options.dataDir, { rotate: options.rotateToken })
const started = await startBrowserServer({
  core,
  staticDir: options.staticDir,
  host: options.host,
  port: options.port,
  token,
  allowedHosts: options.allowedHosts
}).catch(async (error: unknown) => {
  // A port in use is a set-up mistake, not a crash: say which port and how to pick another.
  const code = (error as { code?: unknown }).code
  if (code !== 'EADDRINUSE' && code !== 'EACCES') throw error
  console.error(
    code === 'EADDRINUSE'
      ? `Port ${options.port} on ${options.host} is already in use (another Switchboard, or another program). Choose another with --port N (or SWITCHBOARD_PORT), or stop the other one.`
      : `Port ${options.port} on ${options.host} may not be used by this user. Choose a port above 1023 with --port N.`
  )
  await core.close()
  dataLock.release()
  process.exit(1)
})
close = started.close
console.log(`Switchboard is running in browser mode.\nOpen ${started.url}`)
if (password) console.log('The page will ask for the access password.')
console.log(`Data folder: ${options.dataDir}`)
