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
}
const config = parse(readFileSync('electron-builder.yml', 'utf8')) as Record<string, unknown> & {
  mac: PlatformConfig
  win: PlatformConfig
  linux: PlatformConfig
  files: string[]
  electronFuses: Record<string, boolean>
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
    expect(config.asar).toBe(true)
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

  it('builds dmg+zip with the hardened runtime, nsis, AppImage+deb', () => {
    const targets = (list: Target[]) => list.map((t) => (typeof t === 'string' ? t : t.target))
    expect(targets(config.mac.target)).toEqual(['dmg', 'zip'])
    expect(config.mac.hardenedRuntime).toBe(true)
    expect(existsSync(config.mac.entitlements)).toBe(true)
    expect(readFileSync(config.mac.entitlements, 'utf8')).toContain('com.apple.security.cs.allow-jit')
    expect(targets(config.win.target)).toEqual(['nsis'])
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

  it('packages what the app runs: the built output and package.json', () => {
    expect(config.files).toContain('out/**')
    const pkg = JSON.parse(readFileSync('package.json', 'utf8'))
    expect(pkg.main).toBe('./out/main/index.js')
  })
})
