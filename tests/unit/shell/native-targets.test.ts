import { spawnSync } from 'node:child_process'
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import afterPack from '../../../scripts/packaging/after-pack.mjs'
import { NATIVE_TARGETS, binaryArch, checkPackedNatives, elfNeeded, missingComponents, targetPackages } from '../../../scripts/packaging/native-targets.mjs'

// Fake native files: just the header bytes each loader (and our check) reads.
function elf(machine: number) {
  const b = Buffer.alloc(64)
  b.write('\x7fELF', 0, 'latin1')
  b[4] = 2 // 64-bit
  b[5] = 1 // little-endian
  b.writeUInt16LE(machine, 18)
  return b
}
function macho(cpu: number) {
  const b = Buffer.alloc(32)
  b.writeUInt32LE(0xfeedfacf, 0)
  b.writeUInt32LE(cpu, 4)
  return b
}
function fat(...cpus: number[]) {
  const b = Buffer.alloc(8 + cpus.length * 20)
  b.writeUInt32BE(0xcafebabe, 0)
  b.writeUInt32BE(cpus.length, 4)
  cpus.forEach((cpu, i) => b.writeUInt32BE(cpu, 8 + i * 20))
  return b
}
function pe(machine: number) {
  const b = Buffer.alloc(0x100)
  b.write('MZ', 0, 'latin1')
  b.writeUInt32LE(0x80, 0x3c)
  b.write('PE\0\0', 0x80, 'latin1')
  b.writeUInt16LE(machine, 0x84)
  return b
}
const X64 = { elf: elf(0x3e), macho: macho(0x01000007), pe: pe(0x8664) }
const ARM64 = { elf: elf(0xb7), macho: macho(0x0100000c), pe: pe(0xaa64) }

let dirs: string[] = []
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  dirs = []
})

/** A packed app's resources folder with the given files under app.asar.unpacked/node_modules. */
function resources(files: Record<string, Buffer>) {
  const dir = mkdtempSync(join(tmpdir(), 'sb-pack-'))
  dirs.push(dir)
  for (const [path, bytes] of Object.entries(files)) {
    const file = join(dir, 'app.asar.unpacked', 'node_modules', path)
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, bytes)
  }
  return dir
}

const linuxX64 = {
  '@napi-rs/keyring-linux-x64-gnu/keyring.linux-x64-gnu.node': X64.elf,
  'sqlite-vec-linux-x64/vec0.so': X64.elf,
  'better-sqlite3/prebuilds/linux-x64.node': X64.elf,
  '@node-llama-cpp/linux-x64/bins/linux-x64/llama-addon.node': X64.elf,
  '@node-llama-cpp/linux-x64/bins/linux-x64/libggml-cpu-x64.so': X64.elf
}
const macArm64 = {
  '@napi-rs/keyring-darwin-arm64/keyring.darwin-arm64.node': ARM64.macho,
  'sqlite-vec-darwin-arm64/vec0.dylib': ARM64.macho,
  'better-sqlite3/prebuilds/darwin-arm64.node': ARM64.macho,
  '@node-llama-cpp/mac-arm64-metal/bins/mac-arm64-metal/llama-addon.node': ARM64.macho
}

describe('binaryArch', () => {
  it('reads the processor from ELF, Mach-O (thin and fat) and PE headers', () => {
    expect(binaryArch(X64.elf)).toEqual({ format: 'elf', archs: ['x64'] })
    expect(binaryArch(ARM64.elf)).toEqual({ format: 'elf', archs: ['arm64'] })
    expect(binaryArch(ARM64.macho)).toEqual({ format: 'macho', archs: ['arm64'] })
    expect(binaryArch(fat(0x01000007, 0x0100000c))).toEqual({ format: 'macho', archs: ['x64', 'arm64'] })
    expect(binaryArch(X64.pe)).toEqual({ format: 'pe', archs: ['x64'] })
    expect(binaryArch(ARM64.pe)).toEqual({ format: 'pe', archs: ['arm64'] })
    expect(binaryArch(Buffer.from('#!/bin/sh\n'))).toBeUndefined()
    expect(binaryArch(Buffer.alloc(0))).toBeUndefined()
  })

  it('agrees with the real prebuilds better-sqlite3 ships for every OS', () => {
    const read = (name: string) => readFileSync(`node_modules/better-sqlite3/prebuilds/${name}.node`).subarray(0, 4096)
    expect(binaryArch(read('linux-x64'))).toEqual({ format: 'elf', archs: ['x64'] })
    expect(binaryArch(read('linux-arm64'))).toEqual({ format: 'elf', archs: ['arm64'] })
    expect(binaryArch(read('darwin-arm64'))).toEqual({ format: 'macho', archs: ['arm64'] })
    expect(binaryArch(read('darwin-x64'))).toEqual({ format: 'macho', archs: ['x64'] })
    expect(binaryArch(read('win32-x64'))).toEqual({ format: 'pe', archs: ['x64'] })
    expect(binaryArch(read('win32-arm64'))).toEqual({ format: 'pe', archs: ['arm64'] })
  })
})

describe('checkPackedNatives', () => {
  it('passes a Linux x64 app carrying its own binaries', () => {
    expect(checkPackedNatives({ resourcesDir: resources(linuxX64), platform: 'linux', arch: 'x64' })).toEqual({ errors: [], warnings: [] })
    expect(checkPackedNatives({ resourcesDir: resources(macArm64), platform: 'darwin', arch: 'arm64' })).toEqual({ errors: [], warnings: [] })
  })

  it('fails an arm64 macOS app that carries the host’s (Linux x64) binaries', () => {
    const { errors } = checkPackedNatives({ resourcesDir: resources(linuxX64), platform: 'darwin', arch: 'arm64' })
    expect(errors).toHaveLength(4)
    expect(errors.join('\n')).toContain('keychain (@napi-rs/keyring): no')
    expect(errors.join('\n')).toContain('install-target.mjs darwin arm64')
  })

  it('fails a binary of the right name built for another processor', () => {
    const wrongArch = { ...macArm64, 'sqlite-vec-darwin-arm64/vec0.dylib': X64.macho }
    const { errors } = checkPackedNatives({ resourcesDir: resources(wrongArch), platform: 'darwin', arch: 'arm64' })
    expect(errors).toEqual([expect.stringMatching(/sqlite-vec-darwin-arm64\/vec0\.dylib is not a darwin arm64 binary \(macho x64\)/)])
  })

  it('fails a missing engine prebuilt and a missing SQLite prebuild', () => {
    const { '@node-llama-cpp/linux-x64/bins/linux-x64/llama-addon.node': _engine, 'better-sqlite3/prebuilds/linux-x64.node': _sqlite, ...rest } = linuxX64
    const { errors } = checkPackedNatives({ resourcesDir: resources(rest), platform: 'linux', arch: 'x64' })
    expect(errors.map((e) => e.split(':')[0])).toEqual(['database (better-sqlite3)', 'built-in engine (node-llama-cpp)'])
  })

  it('accepts a universal (fat) binary holding the target', () => {
    const files = { ...macArm64, '@napi-rs/keyring-darwin-arm64/keyring.darwin-arm64.node': fat(0x01000007, 0x0100000c) }
    expect(checkPackedNatives({ resourcesDir: resources(files), platform: 'darwin', arch: 'arm64' }).errors).toEqual([])
  })

  it('warns about native files for other targets (they only cost size)', () => {
    const files = { ...linuxX64, 'better-sqlite3/prebuilds/linux-arm64.node': ARM64.elf, 'better-sqlite3/prebuilds/win32-x64.node': X64.pe }
    const { errors, warnings } = checkPackedNatives({ resourcesDir: resources(files), platform: 'linux', arch: 'x64' })
    expect(errors).toEqual([])
    expect(warnings).toEqual([
      expect.stringContaining('better-sqlite3/prebuilds/linux-arm64.node is a elf arm64 binary'),
      expect.stringContaining('better-sqlite3/prebuilds/win32-x64.node is a pe x64 binary')
    ])
  })

  it('refuses Windows arm64: sqlite-vec publishes no build for it', () => {
    expect(missingComponents('win', 'arm64')).toEqual(['sqliteVec'])
    const files = {
      '@napi-rs/keyring-win32-arm64-msvc/keyring.win32-arm64-msvc.node': ARM64.pe,
      'better-sqlite3/prebuilds/win32-arm64.node': ARM64.pe,
      '@node-llama-cpp/win-arm64/bins/win-arm64/llama-addon.node': ARM64.pe
    }
    expect(checkPackedNatives({ resourcesDir: resources(files), platform: 'win32', arch: 'arm64' }).errors).toEqual([
      'knowledge bases (sqlite-vec): no build is published for win32 arm64; this target is not supported'
    ])
  })
})

describe('the afterPack hook', () => {
  it('finds Resources inside the macOS bundle and throws, naming what is missing', async () => {
    const appOutDir = mkdtempSync(join(tmpdir(), 'sb-out-'))
    dirs.push(appOutDir)
    const context = { appOutDir, electronPlatformName: 'darwin', arch: 3, packager: { appInfo: { productFilename: 'Switchboard' } } }
    await expect(afterPack(context)).rejects.toThrow(/darwin arm64 app lacks native files[\s\S]*keychain/)
    for (const [path, bytes] of Object.entries(macArm64)) {
      const file = join(appOutDir, 'Switchboard.app/Contents/Resources/app.asar.unpacked/node_modules', path)
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, bytes)
    }
    await expect(afterPack(context)).resolves.toBeUndefined()
  })
})

describe('every target electron-builder.yml builds', () => {
  const config = parse(readFileSync('electron-builder.yml', 'utf8')) as Record<'mac' | 'win' | 'linux', { target: (string | { target: string; arch?: string[] })[] }> & { afterPack: string }
  const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'))
  const targets = (['mac', 'win', 'linux'] as const).flatMap((os) =>
    config[os].target.flatMap((t) => (typeof t === 'string' ? ['x64'] : (t.arch ?? ['x64'])).map((arch) => [os, arch] as const))
  )

  it('has every component published, at a version the lockfile pins', () => {
    expect(targets.length).toBeGreaterThan(0)
    for (const [os, arch] of targets) {
      expect(missingComponents(os, arch), `${os} ${arch}`).toEqual([])
      expect(targetPackages(os, arch, lock)).toHaveLength(3)
    }
    expect(targetPackages('mac', 'arm64', lock)).toEqual(['@napi-rs/keyring-darwin-arm64@2.1.2', 'sqlite-vec-darwin-arm64@0.1.9', '@node-llama-cpp/mac-arm64-metal@3.21.1'])
    expect(() => targetPackages('linux', 'riscv64', lock)).toThrow(/Known targets/)
  })

  it('runs the check after packing', () => {
    expect(config.afterPack).toBe('./scripts/packaging/after-pack.mjs')
    expect(Object.keys(NATIVE_TARGETS)).toContain('linux-x64')
  })
})

describe('install-target.mjs', () => {
  const run = (...args: string[]) => spawnSync(process.execPath, ['scripts/packaging/install-target.mjs', ...args], { encoding: 'utf8', env: { ...process.env, PATH: '' } })

  it('refuses a target lacking a component before installing anything', () => {
    const refused = run('win32', 'arm64')
    expect(refused.status).toBe(1)
    expect(refused.stderr).toContain('win32 arm64 cannot be packaged: no published build of sqliteVec')
  })

  it('says how to call it', () => {
    const usage = run()
    expect(usage.status).toBe(2)
    expect(usage.stderr).toContain('Usage: node scripts/packaging/install-target.mjs <darwin|win32|linux> <x64|arm64>')
  })
})

describe('the engine’s shared libraries in a Linux pack', () => {
  const bins = resolve('node_modules/@node-llama-cpp/linux-x64/bins/linux-x64')
  /** The Linux x64 app with the real engine prebuilt, less the files `drop` matches. */
  function packWithEngine(drop: RegExp) {
    const { '@node-llama-cpp/linux-x64/bins/linux-x64/llama-addon.node': _addon, '@node-llama-cpp/linux-x64/bins/linux-x64/libggml-cpu-x64.so': _cpu, ...rest } = linuxX64
    const dir = resources(rest)
    const target = join(dir, 'app.asar.unpacked/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64')
    mkdirSync(target, { recursive: true })
    for (const name of readdirSync(bins)) if (!drop.test(name)) symlinkSync(join(bins, name), join(target, name))
    return dir
  }

  it('reads the libraries the real addon names (DT_NEEDED)', () => {
    expect(elfNeeded(readFileSync(join(bins, 'llama-addon.node')))).toEqual(expect.arrayContaining(['libllama.v0.4.0.so', 'libggml.v0.4.0.so', 'libggml-base.so', 'libllama-common.so', 'libc.so.6']))
    expect(elfNeeded(X64.elf)).toEqual([])
  })

  it('passes the whole prebuilt, and fails a pack without libllama, libggml-base or any CPU backend', () => {
    expect(checkPackedNatives({ resourcesDir: packWithEngine(/^$/), platform: 'linux', arch: 'x64' }).errors).toEqual([])
    const noLlama = checkPackedNatives({ resourcesDir: packWithEngine(/^libllama/), platform: 'linux', arch: 'x64' }).errors
    expect(noLlama).toEqual(expect.arrayContaining([expect.stringMatching(/libllama\.v0\.4\.0\.so, which the engine loads, is not beside llama-addon\.node/), expect.stringMatching(/libllama-common\.so/)]))
    const noBase = checkPackedNatives({ resourcesDir: packWithEngine(/^libggml-base\.so$/), platform: 'linux', arch: 'x64' }).errors
    expect(noBase).toEqual([expect.stringMatching(/libggml-base\.so, which the engine loads/)])
    const noCpu = checkPackedNatives({ resourcesDir: packWithEngine(/^libggml-cpu-/), platform: 'linux', arch: 'x64' }).errors
    expect(noCpu).toEqual([expect.stringMatching(/no CPU backend/)])
  })
})
