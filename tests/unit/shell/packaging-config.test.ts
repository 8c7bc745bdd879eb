import { describe, expect, it } from 'vitest'
import { readFileSync, existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { parse } from 'yaml'

// Packaging cannot run here (it downloads Electron), so the config is checked by loading it,
// validating it against electron-builder's own schema, and asserting the policy it must carry.
const require = createRequire(import.meta.url)
type Target = string | { target: string }
interface PlatformConfig {
  icon: string
  target: Target[]
  hardenedRuntime?: boolean
  entitlements: string
  notarize?: boolean
  files?: string[]
}
const config = parse(readFileSync('electron-builder.yml', 'utf8')) as Record<string, unknown> & {
  mac: PlatformConfig
  win: PlatformConfig
  linux: PlatformConfig
  files: string[]
  asarUnpack: string[]
  electronFuses: Record<string, boolean>
  deb: { depends?: string[]; fpm?: string[] }
  publish: { provider: string; url: string }
}

describe('electron-builder.yml', () => {
  it('passes electron-builder’s own configuration validation', async () => {
    const { validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as {
      validateConfiguration(c: unknown, logger: { isEnabled: boolean; add(): void }): Promise<void>
    }
    await expect(validateConfiguration(config, { isEnabled: false, add: () => undefined })).resolves.toBeUndefined()
    await expect(validateConfiguration({ ...config, mac: { ...config.mac, hardenedRuntim: true } }, { isEnabled: false, add: () => undefined })).rejects.toThrow()
  })

  it('names the app and packs it into an asar', () => {
    expect(config.appId).toMatch(/^[a-z0-9.-]+$/)
    expect(config.productName).toBe('Switchboard')
    // An object (not `false`): the app is packed; smartUnpack off so only the rules below unpack.
    expect(config.asar).toEqual({ smartUnpack: false })
  })

  it('sets the Electron fuses of DESIGN §6', () => {
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableCookieEncryption: true,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true
    })
  })

  it('re-signs a local macOS build ad hoc after flipping the fuses, and lets it load its own native addons', () => {
    expect(config.electronFuses.resetAdHocDarwinSignature).toBe(true)
    const entitlements = readFileSync(config.mac.entitlements, 'utf8')
    expect(entitlements).toMatch(/<key>com\.apple\.security\.cs\.disable-library-validation<\/key>\s*<true\/>/)
    // Notarization runs when the environment has credentials (electron-builder skips it otherwise).
    expect(config.mac.notarize).toBe(true)
  })

  it('keeps electron-builder’s deb dependencies and adds glibc 2.34 (the SQLite and engine prebuilds need it)', () => {
    // `depends` would replace the defaults; the defaults are electron-builder's own list.
    expect(config.deb.depends).toBeUndefined()
    const { default: FpmTarget } = require('app-builder-lib/out/targets/FpmTarget.js') as { default: { prototype: { getDefaultDepends(target: string): string[] } } }
    expect(FpmTarget.prototype.getDefaultDepends('deb')).toEqual(expect.arrayContaining(['libgtk-3-0', 'libnss3', 'xdg-utils']))
    expect(config.deb.fpm).toContain('--depends=libc6 (>= 2.34)')
  })

  it('publishes updates to a generic server, from the zip on macOS', () => {
    expect(config.publish).toMatchObject({ provider: 'generic' })
    expect(new URL(config.publish.url).protocol).toBe('https:')
    expect(config.mac.target.map((t) => (typeof t === 'string' ? t : t.target))).toContain('zip')
  })

  it('builds dmg+zip with the hardened runtime, nsis, AppImage+deb', () => {
    const targets = (list: Target[]) => list.map((t) => (typeof t === 'string' ? t : t.target))
    expect(targets(config.mac.target)).toEqual(['dmg', 'zip'])
    expect(config.mac.hardenedRuntime).toBe(true)
    expect(existsSync(config.mac.entitlements)).toBe(true)
    expect(readFileSync(config.mac.entitlements, 'utf8')).toContain('com.apple.security.cs.allow-jit')
    expect(targets(config.win.target)).toEqual(['nsis'])
    expect(readFileSync(config.mac.entitlements, 'utf8')).toContain('com.apple.security.cs.disable-library-validation')
    expect(targets(config.linux.target)).toEqual(['AppImage', 'deb'])
  })

  it('uses icons that exist in build/', () => {
    for (const platform of ['mac', 'win', 'linux']) {
      const icon = config[platform as 'mac' | 'win' | 'linux'].icon
      expect(icon.startsWith('build/')).toBe(true)
      const png = readFileSync(icon)
      expect(png.subarray(1, 4).toString()).toBe('PNG')
      expect(png.readUInt32BE(16)).toBeGreaterThanOrEqual(512) // width
    }
  })

  it('packages what the app runs: the built output (with the CLI) and package.json', () => {
    expect(config.files).toContain('out/**')
    expect(kept('linux', 'out/main/index.js')).toBe(true)
    expect(kept('linux', 'out/main/cli.js')).toBe(true)
    expect(kept('linux', 'out/main/server.js')).toBe(false)
    const pkg = JSON.parse(readFileSync('package.json', 'utf8'))
    expect(pkg.main).toBe('./out/main/index.js')
  })
})

// electron-builder's own matcher and macros: the files rules applied to node_modules as
// electron-builder applies them (an include of everything, then the exclusions in order), for
// a build of `os`/`arch` run on that OS (${platform} is the OS electron-builder runs on).
const { FileMatcher } = require('app-builder-lib/out/fileMatcher.js') as {
  FileMatcher: new (from: string, to: string, expand: (s: string) => string, patterns: string[]) => { createFilter(): (file: string, stat: { isDirectory(): boolean }) => boolean }
}
const { expandMacro } = require('app-builder-lib/out/util/macroExpander.js') as { expandMacro(pattern: string, arch: string, appInfo: object, extra: object): string }
const NODE_PLATFORM = { mac: 'darwin', win: 'win32', linux: 'linux' } as const
function kept(os: 'mac' | 'win' | 'linux', path: string, arch = 'x64') {
  const expand = (pattern: string) => expandMacro(pattern, arch, {}, { os, '/*': '{,/**/*}' }).replace(process.platform, NODE_PLATFORM[os])
  const forModules = path.startsWith('node_modules/') ? ['node_modules/**', ...config.files.filter((p) => p.startsWith('!'))] : config.files
  return new FileMatcher('/app', '/app', expand, forModules).createFilter()(`/app/${path}`, { isDirectory: () => false })
}
const { Minimatch } = require('minimatch') as { Minimatch: new (p: string, o: object) => { match(path: string): boolean } }
const unpacked = (path: string) => config.asarUnpack.some((p) => new Minimatch(p, { dot: true }).match(path))

describe('what goes into app.asar, and what is unpacked beside it', () => {
  it('leaves out sources, type declarations and maps', () => {
    expect(kept('linux', 'node_modules/better-sqlite3/lib/database.js')).toBe(true)
    expect(kept('linux', 'node_modules/better-sqlite3/deps/sqlite3/sqlite3.c')).toBe(false)
    expect(kept('linux', 'node_modules/better-sqlite3/src/better_sqlite3.cpp')).toBe(false)
    expect(kept('linux', 'node_modules/openai/index.d.ts')).toBe(false)
    expect(kept('linux', 'node_modules/openai/index.d.mts')).toBe(false)
    expect(kept('linux', 'node_modules/openai/index.js')).toBe(true)
    expect(kept('linux', 'out/main/index.js.map')).toBe(false)
  })

  it('has no platform-level files list (electron-builder would use it instead of the top-level one)', () => {
    for (const os of ['mac', 'win', 'linux'] as const) expect(config[os].files, os).toBeUndefined()
  })

  it('carries each target’s own SQLite prebuild only', () => {
    expect(kept('linux', 'node_modules/better-sqlite3/prebuilds/linux-arm64.node')).toBe(false)
    expect(kept('linux', 'node_modules/better-sqlite3/prebuilds/linux-arm64.node', 'arm64')).toBe(true)
    expect(kept('linux', 'node_modules/better-sqlite3/prebuilds/linuxmusl-x64.node')).toBe(false)
    expect(kept('mac', 'node_modules/better-sqlite3/prebuilds/darwin-x64.node', 'arm64')).toBe(false)
    expect(kept('linux', 'node_modules/better-sqlite3/prebuilds/linux-x64.node')).toBe(true)
    expect(kept('linux', 'node_modules/better-sqlite3/prebuilds/darwin-arm64.node')).toBe(false)
    expect(kept('linux', 'node_modules/better-sqlite3/prebuilds/win32-x64.node')).toBe(false)
    expect(kept('mac', 'node_modules/better-sqlite3/prebuilds/darwin-arm64.node', 'arm64')).toBe(true)
    expect(kept('mac', 'node_modules/better-sqlite3/prebuilds/linux-x64.node')).toBe(false)
    expect(kept('win', 'node_modules/better-sqlite3/prebuilds/win32-x64.node')).toBe(true)
    expect(kept('win', 'node_modules/better-sqlite3/prebuilds/linuxmusl-x64.node')).toBe(false)
  })

  it('carries the built-in engine’s CPU prebuilt for the OS, not its GPU builds or llama.cpp’s sources', () => {
    expect(kept('linux', 'node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/llama-addon.node')).toBe(true)
    expect(kept('linux', 'node_modules/@node-llama-cpp/linux-x64-cuda/bins/linux-x64-cuda/libggml-cuda.so')).toBe(false)
    expect(kept('linux', 'node_modules/@node-llama-cpp/linux-x64-cuda-ext/bins/linux-x64-cuda-ext/x.so')).toBe(false)
    expect(kept('linux', 'node_modules/@node-llama-cpp/linux-x64-vulkan/bins/linux-x64-vulkan/x.so')).toBe(false)
    expect(kept('linux', 'node_modules/@node-llama-cpp/linux-armv7l/bins/linux-armv7l/llama-addon.node')).toBe(false)
    expect(kept('linux', 'node_modules/@node-llama-cpp/mac-arm64-metal/bins/mac-arm64-metal/llama-addon.node')).toBe(false)
    expect(kept('mac', 'node_modules/@node-llama-cpp/mac-arm64-metal/bins/mac-arm64-metal/llama-addon.node', 'arm64')).toBe(true)
    expect(kept('mac', 'node_modules/@node-llama-cpp/win-x64/bins/win-x64/llama-addon.node')).toBe(false)
    expect(kept('mac', 'node_modules/@node-llama-cpp/mac-arm64-metal/bins/mac-arm64-metal/llama-addon.node', 'x64')).toBe(false)
    expect(kept('mac', 'node_modules/@node-llama-cpp/mac-x64/bins/mac-x64/llama-addon.node', 'x64')).toBe(true)
    expect(kept('linux', 'node_modules/@node-llama-cpp/linux-arm64/bins/linux-arm64/llama-addon.node')).toBe(false)
    expect(kept('linux', 'node_modules/@node-llama-cpp/linux-arm64/bins/linux-arm64/llama-addon.node', 'arm64')).toBe(true)
    expect(kept('win', 'node_modules/@node-llama-cpp/win-x64/bins/win-x64/llama-addon.node')).toBe(true)
    expect(kept('win', 'node_modules/@node-llama-cpp/win-x64-cuda/bins/win-x64-cuda/ggml-cuda.dll')).toBe(false)
    expect(kept('linux', 'node_modules/node-llama-cpp/llama/gitRelease.bundle')).toBe(false)
    expect(kept('linux', 'node_modules/node-llama-cpp/llama/addon/addon.cpp')).toBe(false)
    expect(kept('linux', 'node_modules/node-llama-cpp/llama/CMakeLists.txt')).toBe(false)
    // What node-llama-cpp reads at run time stays.
    expect(kept('linux', 'node_modules/node-llama-cpp/llama/binariesGithubRelease.json')).toBe(true)
    expect(kept('linux', 'node_modules/node-llama-cpp/llama/llama.cpp.info.json')).toBe(true)
    expect(kept('linux', 'node_modules/node-llama-cpp/dist/index.js')).toBe(true)
  })

  it('unpacks native files (loaded by path) and nothing of the JavaScript that runs them', () => {
    expect(unpacked('node_modules/better-sqlite3/prebuilds/linux-x64.node')).toBe(true)
    expect(unpacked('node_modules/@napi-rs/keyring-linux-x64-gnu/keyring.linux-x64-gnu.node')).toBe(true)
    expect(unpacked('node_modules/sqlite-vec-linux-x64/vec0.so')).toBe(true)
    expect(unpacked('node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/libggml-base.so')).toBe(true)
    expect(unpacked('node_modules/node-llama-cpp/bins/linux-x64/llama-addon.node')).toBe(true)
    expect(unpacked('node_modules/node-llama-cpp/llama/localBuilds/linux-x64/Release/llama-addon.node')).toBe(true)
    // better-sqlite3's JavaScript stays in the checked archive.
    expect(unpacked('node_modules/better-sqlite3/lib/database.js')).toBe(false)
    expect(unpacked('out/main/index.js')).toBe(false)
  })
})
