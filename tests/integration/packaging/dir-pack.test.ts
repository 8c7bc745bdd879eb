import { execFileSync } from 'node:child_process'
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

// electron-builder's real packing of this project (`--linux dir`), with a stand-in for the
// Electron binary, which cannot be downloaded here: a small executable carrying the fuse wire
// (@electron/fuses flips it in place). Checks what actually lands in app.asar and beside it.
const require = createRequire(import.meta.url)
const root = resolve(import.meta.dirname, '../../..')
const work = mkdtempSync(join(tmpdir(), 'sb-dir-pack-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX'

function standInElectron(): string {
  const dist = join(work, 'electron-dist')
  mkdirSync(join(dist, 'resources'), { recursive: true })
  copyFileSync('/bin/true', join(dist, 'electron'))
  // Fuse wire v1, 8 fuses, all "on" ('1'), as in a stock Electron.
  writeFileSync(join(dist, 'electron'), Buffer.concat([readFileSync(join(dist, 'electron')), Buffer.from(SENTINEL), Buffer.from([1, 8]), Buffer.from('11111111')]))
  chmodSync(join(dist, 'electron'), 0o755)
  writeFileSync(join(dist, 'chrome-sandbox'), '')
  writeFileSync(join(dist, 'LICENSE'), '')
  writeFileSync(join(dist, 'version'), JSON.parse(readFileSync(join(root, 'node_modules/electron/package.json'), 'utf8')).version)
  return dist
}

describe.runIf(process.platform === 'linux' && process.arch === 'x64')('electron-builder --linux dir', () => {
  it('packs out/, package.json and the runtime dependencies only; unpacks this target’s native files; flips the fuses', () => {
    const output = join(work, 'dist')
    const log = execFileSync(join(root, 'node_modules/.bin/electron-builder'), ['--linux', 'dir', '--x64', '--publish', 'never', `-c.electronDist=${standInElectron()}`, `-c.directories.output=${output}`], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, CI: '1' }
    })
    const app = join(output, 'linux-unpacked')
    const resources = join(app, 'resources')
    const asar = require('@electron/asar') as { listPackage(file: string): string[] }
    const files = asar.listPackage(join(resources, 'app.asar')).map((f) => f.replace(/\\/g, '/'))

    // Only what the app runs: nothing else of the repository.
    const top = new Set(files.map((f) => f.split('/')[1]))
    expect([...top].sort()).toEqual(['node_modules', 'out', 'package.json'])
    expect(files).toContain('/out/main/index.js')
    expect(files).toContain('/out/main/cli.js')
    expect(files).not.toContain('/out/main/server.js')
    expect(files.filter((f) => f.endsWith('.map') || f.endsWith('.d.ts'))).toEqual([])
    expect(files.filter((f) => /better-sqlite3\/(deps|src)\//.test(f))).toEqual([])
    expect(files.filter((f) => /node-llama-cpp\/llama\/(gitRelease\.bundle|addon\/)/.test(f))).toEqual([])
    expect(files.filter((f) => /@node-llama-cpp\/(?!linux-x64(\/|$))/.test(f))).toEqual([])
    // Dev dependencies stay out.
    for (const dev of ['vitest', 'typescript', 'electron', 'react', 'yaml']) expect(top.has(dev) || files.some((f) => f.startsWith(`/node_modules/${dev}/`)), dev).toBe(false)

    // Beside the archive: the natives, this target's only; better-sqlite3's JavaScript stays inside.
    const unpacked = join(resources, 'app.asar.unpacked/node_modules')
    expect(existsSync(join(unpacked, 'better-sqlite3/prebuilds/linux-x64.node'))).toBe(true)
    expect(existsSync(join(unpacked, 'better-sqlite3/prebuilds/linux-arm64.node'))).toBe(false)
    expect(existsSync(join(unpacked, 'better-sqlite3/lib'))).toBe(false)
    expect(existsSync(join(unpacked, 'sqlite-vec-linux-x64/vec0.so'))).toBe(true)
    expect(existsSync(join(unpacked, '@node-llama-cpp/linux-x64/bins/linux-x64/llama-addon.node'))).toBe(true)
    expect(existsSync(join(unpacked, '@node-llama-cpp/linux-x64-cuda'))).toBe(false)
    // The afterPack check ran and found nothing foreign.
    expect(log).not.toMatch(/native check:/)

    // The update feed, the icon for the window, and the flipped fuses (runAsNode off, cookie encryption on…).
    expect(readFileSync(join(resources, 'app-update.yml'), 'utf8')).toMatch(/provider: generic/)
    expect(existsSync(join(resources, 'resources/icon.png'))).toBe(true)
    const binary = readFileSync(join(app, 'switchboard'))
    const wire = binary.subarray(binary.indexOf(SENTINEL) + SENTINEL.length + 2, binary.indexOf(SENTINEL) + SENTINEL.length + 10).toString('latin1')
    expect(wire).toBe('01001100')
  }, 600_000)
})
