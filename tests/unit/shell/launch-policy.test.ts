import { execFileSync } from 'node:child_process'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { commands } from '../../../src/cli/commands/index'
import { CLI_COMMANDS, cliArguments, shimPlan } from '../../../src/main/policy/command-line'
import { desktopDataDir } from '../../../src/main/policy/data-dir'
import { devServerUrl, loaderEnvToRemove } from '../../../src/main/policy/launch-env'
import { quitSequence } from '../../../src/main/policy/quit'
import { windowIconPath } from '../../../src/main/policy/window-icon'

describe('what the environment may change', () => {
  it('uses ELECTRON_RENDERER_URL in a checkout only', () => {
    const env = { ELECTRON_RENDERER_URL: 'http://localhost:5173' }
    expect(devServerUrl(env, false)).toBe('http://localhost:5173')
    expect(devServerUrl(env, true)).toBeUndefined()
    expect(devServerUrl({ ELECTRON_RENDERER_URL: 'javascript:alert(1)' }, false)).toBeUndefined()
    expect(devServerUrl({ ELECTRON_RENDERER_URL: 'not a url' }, false)).toBeUndefined()
    expect(devServerUrl({}, false)).toBeUndefined()
  })

  it('removes variables that name code to load before the keychain opens, when packaged', () => {
    const env = { NAPI_RS_NATIVE_LIBRARY_PATH: '/tmp/evil.node', NODE_PATH: '/tmp/mods', ELECTRON_RENDERER_URL: 'http://evil.example', PATH: '/usr/bin', HOME: '/home/u' }
    expect(loaderEnvToRemove(env, true).sort()).toEqual(['ELECTRON_RENDERER_URL', 'NAPI_RS_NATIVE_LIBRARY_PATH', 'NODE_PATH'])
    expect(loaderEnvToRemove(env, false)).toEqual([])
    expect(loaderEnvToRemove({ PATH: '/usr/bin' }, true)).toEqual([])
  })
})

describe('the desktop app’s data folder', () => {
  const userData = '/home/u/.config/Switchboard'
  it('takes --data-dir, then SWITCHBOARD_DATA_DIR, then <userData>/data', () => {
    expect(desktopDataDir(['/opt/Switchboard/switchboard'], {}, userData, '/home/u')).toBe(join(userData, 'data'))
    expect(desktopDataDir(['exe'], { SWITCHBOARD_DATA_DIR: '/srv/sb' }, userData, '/')).toBe('/srv/sb')
    expect(desktopDataDir(['exe', '--data-dir', '/mnt/other'], { SWITCHBOARD_DATA_DIR: '/srv/sb' }, userData, '/')).toBe('/mnt/other')
    expect(desktopDataDir(['exe', '--data-dir=/mnt/eq'], {}, userData, '/')).toBe('/mnt/eq')
    expect(desktopDataDir(['exe', '--data-dir', 'rel/dir'], {}, userData, '/home/u')).toBe('/home/u/rel/dir')
    expect(desktopDataDir(['exe'], { SWITCHBOARD_DATA_DIR: '' }, userData, '/')).toBe(join(userData, 'data'))
  })
})

describe('the window icon', () => {
  it('is resources/icon.png on Linux (packaged: beside the app), none elsewhere', () => {
    expect(windowIconPath('linux', true, '/opt/Switchboard/resources', '/opt/Switchboard/resources/app.asar')).toBe('/opt/Switchboard/resources/resources/icon.png')
    expect(windowIconPath('linux', false, '/x', '/repo')).toBe('/repo/resources/icon.png')
    expect(windowIconPath('darwin', true, '/x', '/y')).toBeUndefined()
    expect(windowIconPath('win32', true, '/x', '/y')).toBeUndefined()
  })
})

describe('the CLI in the installed app', () => {
  it('knows every CLI command', () => {
    expect([...CLI_COMMANDS].filter((c) => c !== 'help').sort()).toEqual(commands.map((c) => c.name).sort())
  })

  it('runs the CLI when the first argument is a command or --cli, and opens the window otherwise', () => {
    expect(cliArguments(['/opt/Switchboard/switchboard', 'chat', '-m', 'x'], true)).toEqual(['chat', '-m', 'x'])
    expect(cliArguments(['/opt/Switchboard/switchboard', '--cli', '--version'], true)).toEqual(['--version'])
    expect(cliArguments(['/opt/Switchboard/switchboard', '--cli'], true)).toEqual([])
    expect(cliArguments(['/opt/Switchboard/switchboard'], true)).toBeUndefined()
    expect(cliArguments(['/opt/Switchboard/switchboard', '--data-dir', '/x'], true)).toBeUndefined()
    expect(cliArguments(['/opt/Switchboard/switchboard', '/home/u/file.txt'], true)).toBeUndefined()
    // A checkout: `electron . chat`
    expect(cliArguments(['/repo/node_modules/electron/dist/electron', '.', 'providers'], false)).toEqual(['providers'])
  })

  it('puts a shim in ~/.local/bin on macOS and Linux, quoting the executable', () => {
    const plan = shimPlan({ platform: 'linux', home: '/home/u', env: { PATH: '/home/u/.local/bin:/usr/bin' }, executable: "/home/u/Apps/Switch'board.AppImage" })
    expect(plan).toMatchObject({ folder: '/home/u/.local/bin', file: '/home/u/.local/bin/switchboard', onPath: true })
    expect(plan.content).toContain(`exec '/home/u/Apps/Switch'\\''board.AppImage' --cli "$@"`)
    expect(plan.content.startsWith('#!/bin/sh\n')).toBe(true)
    const mac = shimPlan({ platform: 'darwin', home: '/Users/u', env: { PATH: '/usr/bin:/bin' }, executable: '/Applications/Switchboard.app/Contents/MacOS/Switchboard' })
    expect(mac.onPath).toBe(false)
    expect(mac.pathAdvice).toContain('~/.zprofile')
  })

  it.runIf(process.platform !== 'win32')('the shim still finds a versioned AppImage after an update renamed it', () => {
    const dir = mkdtempSync(join(tmpdir(), "sb-shim's apps-"))
    try {
      const fakeAppImage = (version: string) => {
        const file = join(dir, `Switchboard-${version}.AppImage`)
        writeFileSync(file, `#!/bin/sh\necho "${version} $*"\n`)
        chmodSync(file, 0o755)
        return file
      }
      const old = fakeAppImage('1.2.0')
      const plan = shimPlan({ platform: 'linux', home: '/home/u', env: { PATH: '/usr/bin' }, executable: old })
      const shim = join(dir, 'switchboard')
      writeFileSync(shim, plan.content)
      chmodSync(shim, 0o755)
      expect(execFileSync(shim, ['providers'], { encoding: 'utf8' })).toBe('1.2.0 --cli providers\n')
      // electron-updater's AppImageUpdater: the old file goes, the new one takes the new version's name.
      rmSync(old)
      fakeAppImage('1.3.0')
      expect(execFileSync(shim, ['providers'], { encoding: 'utf8' })).toBe('1.3.0 --cli providers\n')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('puts a .cmd shim under LOCALAPPDATA on Windows and appends it to the user PATH once', () => {
    const env = { LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local', Path: 'C:\\Windows;C:\\Tools;' }
    const plan = shimPlan({ platform: 'win32', home: 'C:\\Users\\u', env, executable: 'C:\\Users\\u\\AppData\\Local\\Programs\\Switchboard\\Switchboard.exe' })
    expect(plan.file).toBe('C:\\Users\\u\\AppData\\Local\\Switchboard\\bin\\switchboard.cmd')
    expect(plan.content).toBe('@echo off\r\n"C:\\Users\\u\\AppData\\Local\\Programs\\Switchboard\\Switchboard.exe" --cli %*\r\n')
    expect(plan.newUserPath).toBe('C:\\Windows;C:\\Tools;C:\\Users\\u\\AppData\\Local\\Switchboard\\bin')
    const again = shimPlan({ platform: 'win32', home: 'C:\\Users\\u', env: { ...env, Path: plan.newUserPath! }, executable: 'x.exe' })
    expect(again.onPath).toBe(true)
    expect(again.newUserPath).toBeUndefined()
  })
})

describe('quitting', () => {
  it('holds the first quit back, closes the core, releases the lock, then exits; a second quit waits for the same close', async () => {
    const order: string[] = []
    let finish!: () => void
    const quit = quitSequence({
      close: () => new Promise<void>((resolve) => (finish = () => (order.push('closed'), resolve()))),
      release: () => order.push('released'),
      exit: (code) => order.push(`exit ${code}`),
      report: (error) => order.push(`report ${String(error)}`)
    })
    expect(quit.onWillQuit()).toBe(true)
    expect(quit.onWillQuit()).toBe(true)
    expect(order).toEqual([])
    finish()
    await quit.done
    expect(order).toEqual(['closed', 'released', 'exit 0'])
    // The exit's own will-quit goes through.
    expect(quit.onWillQuit()).toBe(false)
  })

  it('still releases and exits when closing fails or hangs', async () => {
    vi.useFakeTimers()
    try {
      const order: string[] = []
      const hang = quitSequence({ close: () => new Promise<void>(() => undefined), release: () => order.push('released'), exit: () => order.push('exit'), report: (e) => order.push(String(e)) }, 5_000)
      hang.onWillQuit()
      await vi.advanceTimersByTimeAsync(5_000)
      await hang.done
      expect(order).toEqual(['Error: The core did not close within 5000 ms; quitting anyway.', 'released', 'exit'])
    } finally {
      vi.useRealTimers()
    }
    const order: string[] = []
    const failing = quitSequence({ close: () => Promise.reject(new Error('disk gone')), release: () => order.push('released'), exit: () => order.push('exit'), report: (e) => order.push(String(e)) })
    failing.onWillQuit()
    await failing.done
    expect(order).toEqual(['Error: disk gone', 'released', 'exit'])
  })
})
