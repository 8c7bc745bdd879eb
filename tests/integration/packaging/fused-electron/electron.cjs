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
  // A renderer script (JSON bridge messages) makes this launch the desktop with a window that
  // sends them; it is not handed on to child processes, so a copy started "as Node" opens the app.
  const rendererScript = process.env['STAND_IN_RENDERER']
  delete process.env['STAND_IN_RENDERER']
  const noop = () => undefined
  const appEvents = new EventEmitter()
  const openWindow = () => {
    process.stderr.write('[stand-in] the app opened its window\n')
    process.exit(86)
  }
  const quit = () => {
    let prevented = false
    appEvents.emit('will-quit', { preventDefault: () => (prevented = true) })
    if (!prevented) process.exit(0)
  }
  exports.app = {
    isPackaged: true,
    name: 'Switchboard',
    getPath: (name) => join(userData, name === 'userData' ? '' : name),
    getAppPath: () => join(process.resourcesPath, 'app'),
    getVersion: () => require(join(process.resourcesPath, 'app', 'package.json')).version,
    getName: () => 'Switchboard',
    whenReady: () => Promise.resolve(),
    isReady: () => true,
    on: (event, listener) => void appEvents.on(event, listener),
    once: (event, listener) => void appEvents.once(event, listener),
    requestSingleInstanceLock: () => true,
    releaseSingleInstanceLock: noop,
    quit,
    exit: (code) => process.exit(code ?? 0)
  }
  // runDesktop's first step: without a renderer script the app is opening its window.
  exports.protocol = { registerSchemesAsPrivileged: rendererScript ? noop : openWindow, handle: noop }
  const ipcListeners = []
  exports.ipcMain = { on: (_channel, listener) => void ipcListeners.push(listener) }
  /**
   * The window's renderer: sends the script's bridge messages over the IPC channel one after
   * another (a string "$<id>.<path>" in a message is taken from message <id>'s result), prints
   * every reply as a JSON line, and quits after the last one's result or end.
   */
  const runRenderer = (url) => {
    const script = JSON.parse(require('node:fs').readFileSync(rendererScript, 'utf8'))
    const results = new Map()
    let step = 0
    const fill = (value) => {
      if (typeof value === 'string' && /^\$\d+\./.test(value)) {
        const [id, ...path] = value.slice(1).split('.')
        return path.reduce((v, k) => v?.[k], results.get(Number(id)))
      }
      if (Array.isArray(value)) return value.map(fill)
      if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]))
      return value
    }
    const contents = {
      id: 1,
      isDestroyed: () => false,
      send(_channel, message) {
        process.stdout.write(`${JSON.stringify(message)}\n`)
        const sent = script[step]
        if (!sent || message.id !== sent.id || (message.t !== 'result' && message.t !== 'end' && message.t !== 'refused')) return
        // Before start-up has built the services, a call is answered "not ready": ask again.
        if (message.t === 'result' && !message.result.ok && message.result.error.errorType === 'DataNotReady') return void setTimeout(next, 300)
        if (message.result?.ok) results.set(sent.id, message.result.value)
        step++
        if (step === script.length) quit()
        else next()
      }
    }
    const next = () => {
      for (const listener of ipcListeners) listener({ sender: contents, senderFrame: { url } }, fill(script[step]))
    }
    setTimeout(next, 100)
  }
  class BrowserWindow {
    static windows = []
    static getAllWindows = () => BrowserWindow.windows
    static getFocusedWindow = () => BrowserWindow.windows[0]
    constructor() {
      BrowserWindow.windows.push(this)
      this.webContents = { id: 1, send: noop, isDestroyed: () => false }
    }
    loadURL(url) {
      if (rendererScript) runRenderer(url)
      return Promise.resolve()
    }
    maximize() {}
    once() {}
    on() {}
    show() {}
    focus() {}
    restore() {}
    isDestroyed = () => false
    isMinimized = () => false
    isVisible = () => true
    isMaximized = () => false
    getNormalBounds = () => ({ x: 0, y: 0, width: 1200, height: 800 })
  }
  exports.BrowserWindow = BrowserWindow
  exports.dialog = {
    showErrorBox: (title, message) => process.stderr.write(`[stand-in] dialog: ${title}: ${message}\n`),
    showMessageBoxSync: () => 0
  }
  exports.Menu = { buildFromTemplate: () => ({ getMenuItemById: () => null }), setApplicationMenu: noop }
  exports.net = { fetch: (...args) => fetch(...args) }
  exports.screen = { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] }
  exports.session = { defaultSession: { setPermissionRequestHandler: noop, setPermissionCheckHandler: noop, webRequest: { onHeadersReceived: noop } }, fromPartition: () => ({}) }
  exports.shell = { openExternal: noop, openPath: noop }
  exports.autoUpdater = new EventEmitter()
  exports.Notification = class {
    show() {}
  }
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
