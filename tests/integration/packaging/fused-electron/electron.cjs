// The stand-in's `electron` module (README.md).
/* eslint-disable @typescript-eslint/no-require-imports -- Electron's module is CommonJS: this stand-in is required as it is. */
const { fork } = require('node:child_process')
const { EventEmitter } = require('node:events')
const { join } = require('node:path')
const { pathToFileURL } = require('node:url')

if (process.type === 'utility') {
  // Electron's utility-process module list: net and systemPreferences, no utilityProcess.
  exports.net = {}
} else {
  const userData = process.env['STAND_IN_USER_DATA'] ?? join(require('node:os').tmpdir(), 'stand-in-user-data')
  const noop = () => undefined
  const openWindow = () => {
    process.stderr.write('[stand-in] the app opened its window\n')
    process.exit(86)
  }
  exports.app = {
    isPackaged: true,
    name: 'Switchboard',
    getPath: (name) => join(userData, name === 'userData' ? '' : name),
    getAppPath: () => join(process.resourcesPath, 'app'),
    getVersion: () => '0.0.0',
    whenReady: () => Promise.resolve(),
    on: noop,
    once: noop,
    requestSingleInstanceLock: () => true,
    quit: () => process.exit(0),
    exit: (code) => process.exit(code ?? 0)
  }
  // runDesktop's first step: the app is opening its window.
  exports.protocol = { registerSchemesAsPrivileged: openWindow, handle: noop }
  // What the main process imports by name; nothing of them is used before the window opens.
  exports.BrowserWindow = {}
  exports.dialog = {}
  exports.ipcMain = {}
  exports.Menu = {}
  exports.net = {}
  exports.screen = {}
  exports.session = {}
  exports.shell = {}
  exports.utilityProcess = {
    fork(modulePath, args = [], options = {}) {
      const stdio = options.stdio === 'inherit' ? ['inherit', 'inherit', 'inherit'] : Array.isArray(options.stdio) ? options.stdio : ['ignore', 'ignore', 'ignore']
      const child = fork(modulePath, args, {
        execPath: process.env['STAND_IN_NODE'],
        execArgv: ['--import', pathToFileURL(join(__dirname, 'utility-preload.mjs')).href],
        env: { ...(options.env ?? process.env), STAND_IN_EXE: process.env['STAND_IN_EXE'], STAND_IN_NODE: process.env['STAND_IN_NODE'] },
        stdio: [...stdio.slice(0, 3), 'ipc'],
        serialization: 'advanced'
      })
      const proc = new EventEmitter()
      Object.defineProperty(proc, 'pid', { get: () => child.pid })
      proc.postMessage = (message) => child.connected && child.send(message)
      proc.kill = () => child.kill()
      child.on('message', (message) => proc.emit('message', message))
      child.on('exit', (code, signal) => proc.emit('exit', code ?? (signal ? 1 : 0)))
      return proc
    }
  }
}
