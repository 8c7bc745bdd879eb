import { createCore } from '../core'
import { parseServeArgs } from './options'
import { startBrowserServer } from './server'

// `npm run serve`: Switchboard in a browser. The core runs here in Node; the page talks to it
// over a WebSocket on the same origin.
const options = parseServeArgs(process.argv.slice(2))
if ('error' in options) {
  console.error(options.error)
  process.exit(2)
}

const core = createCore({
  dataDir: options.dataDir,
  mode: 'browser',
  access: options.password ? { password: options.password, sessionKeys: new Set() } : undefined
})

const { url, close } = await startBrowserServer({ core, staticDir: options.staticDir, host: options.host, port: options.port, token: options.token })
console.log(`Switchboard is running in browser mode.\nOpen ${url}`)
if (options.password) console.log('The page will ask for the access password.')
console.log(`Data folder: ${options.dataDir}`)

const shutdown = async () => {
  await close()
  await core.close()
  process.exit(0)
}
process.on('SIGINT', () => void shutdown())
process.on('SIGTERM', () => void shutdown())
