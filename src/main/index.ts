import { app, BrowserWindow, dialog, ipcMain, Menu, net, protocol, screen, session, shell, type WebContents } from 'electron'
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { MENU_CHANNEL, MENU_COMMANDS, type MenuCommand } from '../shared/bridge/desktop-port'
import { IPC_CHANNEL, type ClientMessage, type ServerMessage } from '../shared/bridge/protocol'
import { buildContentSecurityPolicy } from '../shared/security/csp'
import { artifactSandboxPolicyFor } from '../shared/security/artifact-sandbox-policy'
import { isSafeExternalUrl, type AppOrigins } from '../shared/security/url-policy'
import { createCore, type Core } from '../core'
import { configureBuiltinEngine } from '../core/engine'
import { desktopEngineSpawner } from './engine-spawner'
import { BridgeSession } from '../core/bridge/session'
import { acquireDataLock, type DataLock } from '../core/store/data-lock'
import { AppErrorException } from '../shared/errors/app-error'
import { decideLaunch, focusActions } from './policy/instance-lock'
import { APP_ORIGIN, APP_SCHEME, resolveAppRequest } from './policy/app-protocol'
import { buildMenuTemplate } from './policy/menu'
import { chosenPath, fileDialogOptions, type FilePurpose } from './policy/file-dialog'
import { decidePermission, isTrustedSenderUrl } from './policy/permissions'
import { secureWebPreferences } from './policy/web-preferences'
import { guardWebContents, type GuardedContents } from './policy/web-contents-guard'
import { fitToDisplays, MIN_SIZE, parseWindowState, type WindowState } from './policy/window-state'

// The Electron shell only: lifecycle, windows, security policy and the IPC transport.
// Everything else is in src/core, which runs (and is tested) without Electron.

const devServer = process.env['ELECTRON_RENDERER_URL']
const origins: AppOrigins = { appOrigin: APP_ORIGIN, devOrigin: devServer ? new URL(devServer).origin : undefined }
const csp = buildContentSecurityPolicy({ mode: 'desktop', dev: Boolean(devServer), devServer, appOrigin: APP_ORIGIN })

protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true, corsEnabled: true } }
])

const dataDir = () => join(app.getPath('userData'), 'data')
let dataLock: DataLock | undefined
const launch = decideLaunch(app.requestSingleInstanceLock(), () => {
  try {
    dataLock = acquireDataLock(dataDir(), 'the desktop app')
    return { ok: true }
  } catch (error) {
    return { ok: false, message: error instanceof AppErrorException ? error.error.message : String(error) }
  }
})
if (launch.action === 'refuse') dialog.showErrorBox(launch.title, launch.message)
if (launch.action !== 'run') {
  app.quit()
} else {
  let core: Core | undefined
  let mainWindow: BrowserWindow | undefined
  const sessions = new Map<number, BridgeSession<Core['router']['contract']>>()
  const stateFile = () => join(app.getPath('userData'), 'window-state.json')

  const readWindowState = (): WindowState | undefined => {
    try {
      return parseWindowState(JSON.parse(readFileSync(stateFile(), 'utf8')))
    } catch {
      return undefined
    }
  }

  const saveWindowState = (win: BrowserWindow) => {
    try {
      mkdirSync(app.getPath('userData'), { recursive: true })
      const state: WindowState = { bounds: win.getNormalBounds(), maximized: win.isMaximized() }
      writeFileSync(stateFile(), JSON.stringify(state))
    } catch {
      // A window position is not worth failing over.
    }
  }

  const createWindow = () => {
    const state = fitToDisplays(readWindowState(), screen.getAllDisplays().map((d) => d.workArea))
    const win = new BrowserWindow({
      ...state.bounds,
      minWidth: MIN_SIZE.width,
      minHeight: MIN_SIZE.height,
      show: false,
      title: 'Switchboard',
      backgroundColor: '#0b0d12',
      webPreferences: secureWebPreferences({ preload: join(import.meta.dirname, '../preload/index.cjs'), devTools: !app.isPackaged })
    })
    if (state.maximized) win.maximize()
    win.once('ready-to-show', () => win.show())
    win.on('close', () => saveWindowState(win))
    void win.loadURL(devServer ?? `${APP_ORIGIN}/index.html`)
    mainWindow = win
    return win
  }

  const sendToWindow = (contents: WebContents) => (message: ServerMessage) => {
    if (!contents.isDestroyed()) contents.send(IPC_CHANNEL, message)
  }

  app.on('second-instance', () => {
    const win = mainWindow
    if (!win || win.isDestroyed()) return
    for (const step of focusActions({ minimized: win.isMinimized(), visible: win.isVisible() })) win[step]()
  })

  app.on('web-contents-created', (_event, contents) => {
    guardWebContents(contents as unknown as GuardedContents, origins, (url) => void shell.openExternal(url), { devTools: !app.isPackaged })
    contents.on('destroyed', () => {
      sessions.get(contents.id)?.close()
      sessions.delete(contents.id)
    })
  })

  void app.whenReady().then(() => {
    const rendererDir = join(import.meta.dirname, '../renderer')
    protocol.handle(APP_SCHEME, async (request) => {
      const file = resolveAppRequest(request.url, rendererDir)
      if (!file) return new Response('Not found', { status: 404 })
      const response = await net.fetch(pathToFileURL(file).toString())
      const headers = new Headers(response.headers)
      // Issue 18: the artifact runtime folder has the sandbox's own policy (no network).
      const sandboxPolicy = artifactSandboxPolicyFor(new URL(request.url), APP_ORIGIN)
      headers.set('Content-Security-Policy', sandboxPolicy ?? csp)
      if (sandboxPolicy) headers.set('Access-Control-Allow-Origin', '*')
      headers.set('X-Content-Type-Options', 'nosniff')
      return new Response(response.body, { status: response.status, headers })
    })

    const ses = session.defaultSession
    ses.setPermissionRequestHandler((contents, permission, callback, details) =>
      callback(decidePermission(permission, details.requestingUrl ?? contents.getURL(), origins, details as { mediaTypes?: string[] }))
    )
    ses.setPermissionCheckHandler((_contents, permission, requestingOrigin) => decidePermission(permission, requestingOrigin, origins, { mediaTypes: ['audio'] }))
    if (devServer) {
      ses.webRequest.onHeadersReceived((details, callback) =>
        callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [csp] } })
      )
    }

    // The Data page's file dialogs (data.choosePath): the user picks the path here, in the main
    // process, so import and export stream to and from disk and the renderer never names a path.
    const chooseFile = async (purpose: FilePurpose, suggestedName: string) => {
      const options = fileDialogOptions(purpose, app.getPath('documents'), suggestedName) as Electron.SaveDialogOptions & Electron.OpenDialogOptions
      const owner = BrowserWindow.getFocusedWindow() ?? mainWindow
      const result =
        purpose === 'export'
          ? owner ? await dialog.showSaveDialog(owner, options) : await dialog.showSaveDialog(options)
          : owner ? await dialog.showOpenDialog(owner, options) : await dialog.showOpenDialog(options)
      return chosenPath(purpose, result)
    }
    // A remote tool server's OAuth sign-in opens in the user's browser (https only, as every link).
    // The built-in engine runs in a utility process beside this one (out/main/engine-host.js).
    configureBuiltinEngine({ spawner: desktopEngineSpawner(join(import.meta.dirname, 'engine-host.js')) })
    core = createCore({
      dataDir: dataDir(),
      mode: 'desktop',
      fileDialog: { choose: chooseFile },
      openExternal: (url) => void (isSafeExternalUrl(url) && shell.openExternal(url))
    })

    ipcMain.on(IPC_CHANNEL, (event, message: ClientMessage) => {
      if (!core || !isTrustedSenderUrl(event.senderFrame?.url, origins)) return
      let bridge = sessions.get(event.sender.id)
      if (!bridge) {
        bridge = new BridgeSession(core.router, sendToWindow(event.sender))
        sessions.set(event.sender.id, bridge)
      }
      bridge.receive(message)
    })

    const template = buildMenuTemplate(process.platform)
    const menu = Menu.buildFromTemplate(template as Parameters<typeof Menu.buildFromTemplate>[0])
    // Menu items whose id is a menu command send it to the window (the contract: shared/bridge/desktop-port.ts).
    for (const command of MENU_COMMANDS) {
      const item = menu.getMenuItemById(command)
      if (item) item.click = () => mainWindow?.webContents.send(MENU_CHANNEL, command satisfies MenuCommand)
    }
    Menu.setApplicationMenu(menu)

    createWindow()
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) createWindow()
    })
  })

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit()
  })

  app.on('will-quit', () => {
    void core?.close().finally(() => dataLock?.release())
  })
}
