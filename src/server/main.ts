import { createCore } from '../core'
import { MIN_PASSWORD_LENGTH, parseServeArgs } from './options'
import { promptPassword } from './password-prompt'
import { startBrowserServer } from './server'
import { loadOrCreateToken } from './token-store'

// `npm run serve`: Switchboard in a browser. The core runs here in Node; the page talks to it
// over a WebSocket on the same origin.
const options = parseServeArgs(process.argv.slice(2), process.env, Boolean(process.stdin.isTTY))
if ('error' in options) {
  console.error(options.error)
  process.exit(2)
}

let password = options.password
if (options.promptPassword) {
  password = await promptPassword('Access password: ').catch(() => undefined)
  if (!password || password.length < MIN_PASSWORD_LENGTH) {
    console.error(`The access password must have at least ${MIN_PASSWORD_LENGTH} characters.`)
    process.exit(2)
  }
}
if (options.passwordSource === 'argument') {
  console.warn('Note: --password is visible to other users of this machine (ps). Prefer --password-file, --password-prompt or SWITCHBOARD_ACCESS_PASSWORD.')
}

const core = createCore({
  dataDir: options.dataDir,
  mode: 'browser',
  access: password ? { password, sessionKeys: new Set() } : undefined
})

const token = options.token ?? loadOrCreateToken(options.dataDir, { rotate: options.rotateToken })
const { url, close } = await startBrowserServer({
  core,
  staticDir: options.staticDir,
  host: options.host,
  port: options.port,
  token,
  allowedHosts: options.allowedHosts
})
console.log(`Switchboard is running in browser mode.\nOpen ${url}`)
if (password) console.log('The page will ask for the access password.')
console.log(`Data folder: ${options.dataDir}`)

const shutdown = async () => {
  await close()
  await core.close()
  process.exit(0)
}
process.on('SIGINT', () => void shutdown())
process.on('SIGTERM', () => void shutdown())
