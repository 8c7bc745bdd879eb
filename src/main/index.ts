import './early-env'
import { app, BrowserWindow, dialog, ipcMain, Menu, net, protocol, screen, session, shell, type WebContents } from 'electron'
import { execFile } from 'node:child_process'
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { MENU_CHANNEL, MENU_COMMANDS, type MenuCommand } from '../shared/bridge/desktop-port'
import { IPC_CHANNEL, type ClientMessage, type ServerMessage } from '../shared/bridge/protocol'
import { buildContentSecurityPolicy } from '../shared/security/csp'
import { artifactSandboxPolicyFor } from '../shared/security/artifact-sandbox-policy'
import { isSafeExternalUrl, type AppOrigins } from '../shared/security/url-policy'
import { createCore, type Core } from '../core'
import { BridgeSession } from '../core/bridge/session'
import { acquireDataLock, liveLockHolder, QUITTING_HOLDER_WAIT_MS, type DataLock } from '../core/store/data-lock'
import { AppErrorException } from '../shared/errors/app-error'
import { decideLaunch, focusActions, requestInstanceLock } from './policy/instance-lock'
import { APP_ORIGIN, APP_SCHEME, resolveAppRequest } from './policy/app-protocol'
import { buildMenuTemplate } from './policy/menu'
import { chosenPath, fileDialogOptions, type FilePurpose } from './policy/file-dialog'
import { decidePermission, isTrustedSenderUrl } from './policy/permissions'
import { secureWebPreferences } from './policy/web-preferences'
import { guardWebContents, type GuardedContents } from './policy/web-contents-guard'
import { fitToDisplays, MIN_SIZE, parseWindowState, type WindowState } from './policy/window-state'
import { devServerUrl } from './policy/launch-env'
import { desktopDataDir } from './policy/data-dir'
import { cliArguments } from './policy/command-line'
import { quitSequence } from './policy/quit'
import { windowIconPath } from './policy/window-icon'
import { loginShellCommand, mergePath, parseLoginShellPath, shouldReadLoginShellPath } from './policy/login-shell-path'
import { launchBegins, launchSucceeded, parseLaunchRecord, recoveryAdvice, type LaunchRecord } from './policy/launch-health'
import { createShellUpdater } from './updater'
import { backupsDir } from '../core/store/backup'
import { APP_VERSION } from '../core/version'
import { logError } from '../shared/errors/log'
import { desktopEngineSpawner, utilityProcessSpawner } from './engine-spawner'

// The Electron shell only: lifecycle, windows, security policy and the IPC transport.
// Everything else is in src/core, which runs (and is tested) without Electron.

// A packaged app never takes its renderer from an address in the environment.
const devServer = devServerUrl(process.env, app.isPackaged)
const origins: AppOrigins = { appOrigin: APP_ORIGIN, devOrigin: devServer ? new URL(devServer).origin : undefined }
const csp = buildContentSecurityPolicy({ mode: 'desktop', dev: Boolean(devServer), devServer, appOrigin: APP_ORIGIN })

/** The installed `switchboard` command runs the app's executable with a CLI command: run it, no window. */
async function runCommandLine(args: string[]) {
  app.dock?.hide()
  process.env['SWITCHBOARD_CLI_ENTRY'] = '0'
  // The CLI is its own build entry beside this one (out/main/cli.js); main never imports src/cli.
  const cli = (await import(new URL('./cli.js', import.meta.url).href)) as {
    main(argv: string[], io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; stdin: NodeJS.ReadableStream; env: NodeJS.ProcessEnv; engineUtilityProcess: typeof utilityProcessSpawner }): Promise<number>
  }
  const main = cli.main.bind(cli)
  // The engine runs as a utility process here too (runAsNode is fused off: no fork of this binary
  // can be Node), and Electron starts utility processes only once the app is ready.
  await app.whenReady()
  const code = await main(args, { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, engineUtilityProcess: utilityProcessSpawner }).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
    return 1
  })
  app.exit(code)
}

/** The PATH the user's login shell builds (an app started from the Finder has only the system's). */
function loginShellPath(): Promise<void> {
  if (!shouldReadLoginShellPath(process.platform, app.isPackaged)) return Promise.resolve()
  const { file, args } = loginShellCommand(process.env['SHELL'], process.platform)
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 3000, encoding: 'utf8', env: { ...process.env, DISABLE_AUTO_UPDATE: 'true' } }, (_error, stdout) => {
      const merged = mergePath(parseLoginShellPath(stdout ?? ''), process.env['PATH'])
      if (merged) process.env['PATH'] = merged
      resolve()
    })
  })
}

const cliArgs = cliArguments(process.argv, app.isPackaged)
if (cliArgs) void runCommandLine(cliArgs)
else runDesktop()

function runDesktop() {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true, corsEnabled: true } }
  ])

  // --data-dir / SWITCHBOARD_DATA_DIR, as `npm run serve` and the CLI take them.
  const chosenDataDir = desktopDataDir(process.argv, process.env, app.getPath('userData'), process.cwd())
  const dataDir = () => chosenDataDir
  let dataLock: DataLock | undefined
  const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
  const singleInstance = requestInstanceLock(() => app.requestSingleInstanceLock(), () => liveLockHolder(dataDir())?.quitting !== undefined, sleep, QUITTING_HOLDER_WAIT_MS)
  const launch = decideLaunch(singleInstance, () => {
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
    const iconPath = windowIconPath(process.platform, app.isPackaged, process.resourcesPath, app.getAppPath())

    // Launch health: a version that keeps failing to start after an update says how to go back.
    const launchFile = join(app.getPath('userData'), 'launch.json')
    const readLaunch = (): LaunchRecord | undefined => {
      try {
        return parseLaunchRecord(JSON.parse(readFileSync(launchFile, 'utf8')))
      } catch {
        return undefined
      }
    }
    const writeLaunch = (record: LaunchRecord) => {
      try {
        mkdirSync(app.getPath('userData'), { recursive: true })
        writeFileSync(launchFile, JSON.stringify(record))
      } catch {
        // Not worth failing a launch over.
      }
    }
    let launchRecord = launchBegins(readLaunch(), APP_VERSION)
    writeLaunch(launchRecord)

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
        ...(iconPath ? { icon: iconPath } : {}),
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

    void app.whenReady().then(async () => {
      const advice = recoveryAdvice(launchRecord, backupsDir(dataDir()))
      if (advice) {
        const choice = dialog.showMessageBoxSync({ type: 'warning', title: advice.title, message: advice.title, detail: advice.message, buttons: ['Start anyway', 'Open the backups folder', 'Quit'], defaultId: 0, cancelId: 2 })
        if (choice === 1) void shell.openPath(backupsDir(dataDir()))
        if (choice === 2) return app.quit()
      }
      const rendererDir = join(import.meta.dirname, '../renderer')
      protocol.handle(APP_SCHEME, async (request) => {
        const file = resolveAppRequest(request.url, rendererDir)
        if (!file) return new Response('Not found', { status: 404 })
        const response = await net.fetch(pathToFileURL(file).toString())
        const headers = new Headers(response.headers)
        // The artifact runtime folder has the sandbox's own policy (no network).
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
      // Tool servers the core starts (npx, node from Homebrew or nvm) need the user's PATH.
      await loginShellPath()
      const updater = app.isPackaged
        ? createShellUpdater({
            userData: app.getPath('userData'),
            resourcesPath: process.resourcesPath,
            version: APP_VERSION,
            dataVersion: () => launchRecord.dataVersion,
            // The new copy starts at once (AppImage): the locks must be free before it does.
            closeThen: (install) => void quit.closeThen(install)
          })
        : undefined
      // The built-in engine runs in a utility process beside this one (out/main/engine-host.js).
      const engineHost = join(import.meta.dirname, 'engine-host.js')
      // A remote tool server's OAuth sign-in opens in the user's browser (https only, as every link).
      const started = createCore({
        dataDir: dataDir(),
        mode: 'desktop',
        engine: { hostEntry: engineHost, spawner: desktopEngineSpawner(engineHost) },
        fileDialog: { choose: chooseFile },
        openExternal: (url) => void (isSafeExternalUrl(url) && shell.openExternal(url)),
        ...(updater ? { updater } : {})
      })
      core = started
      void (async () => {
        for await (const state of started.context.init.progress()) {
          if (state.phase !== 'ready') continue
          launchRecord = launchSucceeded(launchRecord)
          writeLaunch(launchRecord)
          updater?.start()
          break
        }
      })()

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

    // Quitting waits for the core to close (stores flushed, tool servers stopped), then exits.
    const quit = quitSequence({
      close: () => core?.close() ?? Promise.resolve(),
      quitting: () => dataLock?.markQuitting(),
      release: () => {
        dataLock?.release()
        app.releaseSingleInstanceLock()
      },
      exit: (code) => app.exit(code),
      report: (error) => logError('Closing Switchboard failed', error)
    })
    app.on('will-quit', (event) => {
      if (quit.onWillQuit()) event.preventDefault()
    })
  }
}
