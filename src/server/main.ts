import { createCore } from '../core'
import { parseServeArgs } from './options'
import { startBrowserServer } from './server'
import { lockDataFolderOrExit } from './data-folder-lock'

// `npm run serve`: Switchboard in a browser. The core runs here in Node; the page talks to it
// over a WebSocket on the same origin.
const options = parseServeArgs(process.argv.slice(2))
if ('error' in options) {
  console.error(options.error)
  process.exit(2)
}

// One owner per data folder: refuse before anything opens it if another Switchboard holds it.
const dataLock = lockDataFolderOrExit(options.dataDir, 'browser mode (npm run serve)')

const core = createCore({
  dataDir: options.dataDir,
  mode: 'browser',
  access: options.password ? { password: options.password, sessionKeys: new Set() } : undefined
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

const started = await startBrowserServer({ core, staticDir: options.staticDir, host: options.host, port: options.port, token: options.token })
close = started.close
console.log(`Switchboard is running in browser mode.\nOpen ${started.url}`)
if (options.password) console.log('The page will ask for the access password.')
console.log(`Data folder: ${options.dataDir}`)

