import { randomUUID } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { execFile } from 'node:child_process'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import electronUpdater, { type ProgressInfo, type UpdateInfo } from 'electron-updater'
import type { UpdaterPort } from '../core/bridge/handlers/updates'
import type { CommandLineStatus, UpdateMode, UpdateStatus } from '../shared/bridge/procedures/updates'
import { SHIM_MARKER, shimPlan } from './policy/command-line'
import { channelOf, decideUpdate, parseUpdateMode, updateErrorMessage, updateFeedConfigured } from './policy/update-policy'

// Electron glue only: electron-updater does the fetching, downloading and installing; every
// decision (which release, the rollout, the messages, where the shim goes) is in ./policy.

const CHECK_EVERY_MS = 6 * 60 * 60 * 1000
const FIRST_CHECK_AFTER_MS = 15_000

interface UpdateSettings {
  mode: UpdateMode
  installId: string
  channel: string
}

/** A pre-release build (1.3.0-beta.2) follows its own channel (beta*.yml); a release follows latest. */
function readSettings(file: string, version: string): UpdateSettings {
  let stored: Partial<UpdateSettings> = {}
  try {
    stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<UpdateSettings>
  } catch {
    // First run, or a damaged file: defaults.
  }
  const settings = { mode: parseUpdateMode(stored.mode), installId: typeof stored.installId === 'string' && stored.installId ? stored.installId : randomUUID(), channel: typeof stored.channel === 'string' ? stored.channel : channelOf(version) }
  if (settings.installId !== stored.installId) writeSettings(file, settings)
  return settings
}

function writeSettings(file: string, settings: UpdateSettings) {
  try {
    writeFileSync(file, JSON.stringify(settings))
  } catch {
    // Not worth failing over: the choice applies to this session.
  }
}

/** The feed electron-builder wrote into the app (resources/app-update.yml), if this build and package type has one. */
function feedUrl(resourcesPath: string): string | undefined {
  try {
    // electron-builder writes flat `key: value` lines; only the address is needed here.
    const line = /^url:\s*['"]?([^'"\s]+)['"]?\s*$/m.exec(readFileSync(join(resourcesPath, 'app-update.yml'), 'utf8'))
    return line?.[1]
  } catch {
    return undefined
  }
}

export interface ShellUpdaterOptions {
  userData: string
  resourcesPath: string
  version: string
  /** The newest version that opened the data folder (launch health). */
  dataVersion(): string | undefined
  /** Closes the core and releases the data-folder and single-instance locks, then runs `install`. */
  closeThen?(install: () => void): void
}

export function createShellUpdater(options: ShellUpdaterOptions): UpdaterPort & { start(): void } {
  const { autoUpdater } = electronUpdater
  const settingsFile = join(options.userData, 'updates.json')
  const settings = readSettings(settingsFile, options.version)
  const url = feedUrl(options.resourcesPath)
  const listeners = new Set<(status: UpdateStatus) => void>()
  let status: UpdateStatus = { phase: 'idle', mode: settings.mode, currentVersion: options.version }
  let skipped: string | undefined
  let timer: ReturnType<typeof setInterval> | undefined

  const unavailableReason = !url
    ? 'This kind of install does not update itself (no app-update.yml): update it the way it was installed.'
    : !updateFeedConfigured(url)
      ? 'This build has no update address; a release build sets one (README, "Updates").'
      : undefined
  if (unavailableReason) status = { ...status, phase: 'unavailable', message: unavailableReason }

  const set = (next: Partial<UpdateStatus>) => {
    status = { ...status, ...next, mode: settings.mode }
    for (const listener of listeners) listener(status)
    return status
  }

  autoUpdater.autoDownload = false
  // Setting a channel makes electron-updater allow downgrades; decideUpdate refuses them anyway,
  // and allowDowngrade is set back after it.
  if (settings.channel !== 'latest') autoUpdater.channel = settings.channel
  autoUpdater.allowDowngrade = false
  autoUpdater.autoInstallOnAppQuit = settings.mode === 'automatic'
  autoUpdater.isUserWithinRollout = (info: UpdateInfo) => {
    const decision = decideUpdate({ current: options.version, offered: info.version, stagingPercentage: info.stagingPercentage, installId: settings.installId, channel: settings.channel, dataVersion: options.dataVersion() })
    skipped = decision.take ? undefined : decision.message
    return decision.take
  }
  autoUpdater.on('checking-for-update', () => {
    skipped = undefined
    set({ phase: 'checking', message: undefined })
  })
  autoUpdater.on('update-available', (info: UpdateInfo) => {
    set({ phase: 'available', version: info.version, checkedAt: Date.now() })
    if (settings.mode === 'automatic') void download()
  })
  autoUpdater.on('update-not-available', () => set({ phase: 'up-to-date', checkedAt: Date.now(), message: skipped }))
  autoUpdater.on('download-progress', (p: ProgressInfo) => set({ phase: 'downloading', percent: Math.round(p.percent), bytesPerSecond: Math.round(p.bytesPerSecond) }))
  autoUpdater.on('update-downloaded', (info: UpdateInfo) => set({ phase: 'downloaded', version: info.version, percent: 100 }))
  autoUpdater.on('error', (error: Error) => set({ phase: 'error', message: updateErrorMessage(error, url ?? '') }))
  const commandLine = commandLineInstaller()
  // The AppImage updater installed the new version under its own (versioned) name: the shim follows.
  autoUpdater.on('appimage-filename-updated', (path: string) => commandLine.refresh(path))

  const check = async () => {
    if (status.phase === 'unavailable') return status
    try {
      await autoUpdater.checkForUpdates()
    } catch (error) {
      set({ phase: 'error', message: updateErrorMessage(error, url ?? '') })
    }
    return status
  }
  const download = async () => {
    if (status.phase !== 'available' && status.phase !== 'error') return status
    try {
      set({ phase: 'downloading', percent: 0 })
      await autoUpdater.downloadUpdate()
    } catch (error) {
      set({ phase: 'error', message: updateErrorMessage(error, url ?? '') })
    }
    return status
  }
  const schedule = () => {
    if (timer) clearInterval(timer)
    timer = undefined
    if (settings.mode === 'off' || status.phase === 'unavailable') return
    timer = setInterval(() => void check(), CHECK_EVERY_MS)
    timer.unref()
  }

  return {
    start() {
      commandLine.refresh()
      schedule()
      if (settings.mode !== 'off' && status.phase !== 'unavailable') setTimeout(() => void check(), FIRST_CHECK_AFTER_MS).unref()
    },
    status: () => status,
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    check,
    download,
    restart() {
      if (status.phase !== 'downloaded') return
      // The core closes and the locks are released first: the AppImage's installer starts the new
      // copy at once, which would find them held and quit. Then electron-updater quits and installs.
      const install = () => autoUpdater.quitAndInstall(false, true)
      if (options.closeThen) options.closeThen(install)
      else install()
    },
    setMode(mode) {
      settings.mode = mode
      autoUpdater.autoInstallOnAppQuit = mode === 'automatic'
      writeSettings(settingsFile, settings)
      schedule()
      return set({})
    },
    commandLine
  }
}

const run = promisify(execFile)

/** The Windows user PATH as stored (not the merged one this process sees). */
async function windowsUserPath(): Promise<string> {
  const { stdout } = await run('powershell.exe', ['-NoProfile', '-NonInteractive', '-Command', "[Environment]::GetEnvironmentVariable('Path','User')"], { windowsHide: true })
  return stdout.trim()
}

function commandLineInstaller(): UpdaterPort['commandLine'] & { refresh(executable?: string): void } {
  // An AppImage's executable is inside a mount that changes each run: point at the AppImage file.
  let executable = process.env['APPIMAGE'] ?? process.execPath
  const plan = (userPath?: string) =>
    shimPlan({ platform: process.platform, home: homedir(), env: userPath === undefined ? process.env : { ...process.env, Path: userPath, PATH: userPath }, executable })
  const describe = (p: ReturnType<typeof plan>): CommandLineStatus => {
    const installed = existsSync(p.file) && readFileSync(p.file, 'utf8') === p.content
    return { available: true, installed, file: p.file, onPath: p.onPath, ...(p.pathAdvice && !p.onPath ? { advice: p.pathAdvice } : {}) }
  }
  return {
    /** A shim the app wrote that names another executable (the AppImage was renamed by an update, or moved) is rewritten. */
    refresh(next) {
      if (next) executable = next
      if (process.platform === 'win32') return
      try {
        const p = plan()
        const current = readFileSync(p.file, 'utf8')
        if (current.includes(SHIM_MARKER) && current !== p.content) writeFileSync(p.file, p.content)
      } catch {
        // No shim installed, or not writable: nothing to keep up to date.
      }
    },
    status: () => describe(plan()),
    async install() {
      const p = plan(process.platform === 'win32' ? await windowsUserPath() : undefined)
      mkdirSync(p.folder, { recursive: true })
      writeFileSync(p.file, p.content)
      if (process.platform !== 'win32') chmodSync(p.file, 0o755)
      if (p.newUserPath) {
        await run('powershell.exe', ['-NoProfile', '-NonInteractive', '-Command', "[Environment]::SetEnvironmentVariable('Path', $env:SWITCHBOARD_NEW_PATH, 'User')"], {
          windowsHide: true,
          env: { ...process.env, SWITCHBOARD_NEW_PATH: p.newUserPath }
        })
      }
      return describe(p)
    }
  }
}
