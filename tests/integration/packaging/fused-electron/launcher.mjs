// The stand-in app executable (see README.md). The test writes it as `switchboard` with a shebang
// naming the test's Node, next to resources/app.
import { realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import './hooks.mjs'

const exe = process.env['STAND_IN_EXE']
if (!exe) throw new Error('STAND_IN_EXE names the stand-in executable')
const dir = dirname(realpathSync(exe))
if (process.env['ELECTRON_RUN_AS_NODE']) process.stderr.write('[stand-in] runAsNode is fused off: ELECTRON_RUN_AS_NODE is ignored and the app starts\n')
process.env['STAND_IN_NODE'] ??= process.execPath
process.execPath = exe
process.execArgv = []
Object.defineProperty(process, 'resourcesPath', { value: join(dir, 'resources'), enumerable: true })
Object.defineProperty(process, 'type', { value: 'browser', enumerable: true })
Object.defineProperty(process.versions, 'electron', { value: '45.0.0', enumerable: true })
// Packaged Electron: the user's arguments start at argv[1].
process.argv = [exe, ...process.argv.slice(2)]
await import(pathToFileURL(join(dir, 'resources', 'app', 'out', 'main', 'index.js')).href)
