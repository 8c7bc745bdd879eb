// @ts-check
// Which native files each packaged target needs, and a check that a packed app holds them for
// the right OS and processor. Plain JavaScript (typed in native-targets.d.mts) because
// electron-builder loads the afterPack hook with Node, without a TypeScript loader.
import { existsSync, openSync, readSync, closeSync, readdirSync, readFileSync } from 'node:fs'
import { basename, join, relative } from 'node:path'

/**
 * The optional packages npm installs only for the machine it runs on. A build for another OS or
 * processor needs that target's packages installed explicitly (scripts/packaging/install-target.mjs).
 * `null`: the component is not published for that target (sqlite-vec 0.1.9 has no Windows arm64 build).
 * @type {Record<string, { keyring: string, sqliteVec: string | null, engine: string, engineDir: string, betterSqlite: string }>}
 */
export const NATIVE_TARGETS = {
  'darwin-arm64': { keyring: '@napi-rs/keyring-darwin-arm64', sqliteVec: 'sqlite-vec-darwin-arm64', engine: '@node-llama-cpp/mac-arm64-metal', engineDir: 'mac-arm64-metal', betterSqlite: 'darwin-arm64' },
  'darwin-x64': { keyring: '@napi-rs/keyring-darwin-x64', sqliteVec: 'sqlite-vec-darwin-x64', engine: '@node-llama-cpp/mac-x64', engineDir: 'mac-x64', betterSqlite: 'darwin-x64' },
  'win32-x64': { keyring: '@napi-rs/keyring-win32-x64-msvc', sqliteVec: 'sqlite-vec-windows-x64', engine: '@node-llama-cpp/win-x64', engineDir: 'win-x64', betterSqlite: 'win32-x64' },
  'win32-arm64': { keyring: '@napi-rs/keyring-win32-arm64-msvc', sqliteVec: null, engine: '@node-llama-cpp/win-arm64', engineDir: 'win-arm64', betterSqlite: 'win32-arm64' },
  'linux-x64': { keyring: '@napi-rs/keyring-linux-x64-gnu', sqliteVec: 'sqlite-vec-linux-x64', engine: '@node-llama-cpp/linux-x64', engineDir: 'linux-x64', betterSqlite: 'linux-x64' },
  'linux-arm64': { keyring: '@napi-rs/keyring-linux-arm64-gnu', sqliteVec: 'sqlite-vec-linux-arm64', engine: '@node-llama-cpp/linux-arm64', engineDir: 'linux-arm64', betterSqlite: 'linux-arm64' }
}

/** electron-builder's platform names and Arch enum (builder-util: ia32 0, x64 1, armv7l 2, arm64 3, universal 4). */
const BUILDER_ARCH = ['ia32', 'x64', 'armv7l', 'arm64', 'universal']
/** @param {string} os electron-builder's `mac` / `win` / `linux`, or a Node platform */
export function nodePlatform(os) {
  return ({ mac: 'darwin', darwin: 'darwin', mas: 'darwin', win: 'win32', win32: 'win32', linux: 'linux' })[os] ?? os
}
/** @param {number | string} arch */
export const archName = (arch) => (typeof arch === 'number' ? (BUILDER_ARCH[arch] ?? String(arch)) : arch)

/**
 * What a target lacks: the names of components with no published build.
 * @param {string} platform @param {string} arch
 */
export function missingComponents(platform, arch) {
  const target = NATIVE_TARGETS[`${nodePlatform(platform)}-${arch}`]
  if (!target) return ['keyring', 'sqliteVec', 'engine', 'betterSqlite']
  return Object.entries(target).filter(([, value]) => value === null).map(([key]) => key)
}

/**
 * The exact packages (name@version, versions from the lockfile) to install for a target before packing.
 * @param {string} platform @param {string} arch
 * @param {{ packages?: Record<string, { version?: string }> }} lock package-lock.json
 * @returns {string[]}
 */
export function targetPackages(platform, arch, lock) {
  const target = NATIVE_TARGETS[`${nodePlatform(platform)}-${arch}`]
  if (!target) throw new Error(`No native packages are known for ${platform}-${arch}. Known targets: ${Object.keys(NATIVE_TARGETS).join(', ')}.`)
  const names = [target.keyring, target.sqliteVec, target.engine].filter((n) => n !== null)
  return names.map((name) => {
    const version = lock.packages?.[`node_modules/${name}`]?.version
    if (!version) throw new Error(`package-lock.json has no version for ${name}; run npm install on a machine with the lockfile's registry access.`)
    return `${name}@${version}`
  })
}

/**
 * The processor(s) a native binary is built for, from its header: ELF (Linux), Mach-O and fat
 * Mach-O (macOS), PE (Windows). `undefined` when the bytes are none of these.
 * @param {Uint8Array} bytes the first 4 KB of the file are enough
 * @returns {{ format: 'elf' | 'macho' | 'pe', archs: string[] } | undefined}
 */
export function binaryArch(bytes) {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (b.length >= 20 && b[0] === 0x7f && b.toString('latin1', 1, 4) === 'ELF') {
    const machine = b[5] === 2 ? b.readUInt16BE(18) : b.readUInt16LE(18)
    return { format: 'elf', archs: [({ 0x3e: 'x64', 0xb7: 'arm64', 0x03: 'ia32', 0x28: 'armv7l', 0xf3: 'riscv64' })[machine] ?? `elf-machine-${machine}`] }
  }
  /** @param {number} cpu */
  const machoCpu = (cpu) => ({ 0x01000007: 'x64', 0x0100000c: 'arm64', 7: 'ia32', 12: 'armv7l' })[cpu] ?? `macho-cpu-${cpu}`
  if (b.length >= 8 && b.readUInt32LE(0) === 0xfeedfacf) return { format: 'macho', archs: [machoCpu(b.readUInt32LE(4))] }
  if (b.length >= 8 && b.readUInt32BE(0) === 0xcafebabe) {
    const count = b.readUInt32BE(4)
    const archs = []
    for (let i = 0; i < count && 8 + i * 20 + 4 <= b.length; i++) archs.push(machoCpu(b.readUInt32BE(8 + i * 20)))
    return { format: 'macho', archs }
  }
  if (b.length >= 0x40 && b.toString('latin1', 0, 2) === 'MZ') {
    const pe = b.readUInt32LE(0x3c)
    if (pe + 6 <= b.length && b.toString('latin1', pe, pe + 4) === 'PE\0\0') {
      const machine = b.readUInt16LE(pe + 4)
      return { format: 'pe', archs: [({ 0x8664: 'x64', 0xaa64: 'arm64', 0x14c: 'ia32', 0x1c4: 'armv7l' })[machine] ?? `pe-machine-${machine}`] }
    }
  }
  return undefined
}

/** @param {string} file */
function headerOf(file) {
  const fd = openSync(file, 'r')
  try {
    const buffer = Buffer.alloc(4096)
    const read = readSync(fd, buffer, 0, buffer.length, 0)
    return buffer.subarray(0, read)
  } finally {
    closeSync(fd)
  }
}

/** @param {string} dir @returns {string[]} */
function filesUnder(dir) {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? filesUnder(path) : [path]
  })
}

const FORMAT_OF = /** @type {Record<string, 'elf' | 'macho' | 'pe'>} */ ({ linux: 'elf', darwin: 'macho', win32: 'pe' })
const NATIVE_FILE = /\.(node|so|dylib|dll)(\.\d+)*$/

/**
 * Checks a packed app's unpacked native files for its target: the keychain addon, sqlite-vec's
 * `vec0`, SQLite (better-sqlite3) and the built-in engine's prebuilt must each be there and built
 * for the target's OS and processor. Errors stop the build; warnings name native files of another
 * target that only cost size.
 * @param {{ resourcesDir: string, platform: string, arch: string }} target
 * @returns {{ errors: string[], warnings: string[] }}
 */
export function checkPackedNatives({ resourcesDir, platform, arch }) {
  const os = nodePlatform(platform)
  const errors = /** @type {string[]} */ ([])
  const warnings = /** @type {string[]} */ ([])
  const spec = NATIVE_TARGETS[`${os}-${arch}`]
  if (!spec) return { errors: [`${os}-${arch} is not a supported target (supported: ${Object.keys(NATIVE_TARGETS).join(', ')}).`], warnings }
  const modules = join(resourcesDir, 'app.asar.unpacked', 'node_modules')
  const format = FORMAT_OF[os]
  /** @param {string} file */
  const fits = (file) => {
    const found = binaryArch(headerOf(file))
    return found !== undefined && found.format === format && found.archs.includes(arch)
  }
  /** @param {string} what @param {string} dir @param {RegExp} name @param {string} fix */
  const expectBinary = (what, dir, name, fix) => {
    const candidates = filesUnder(join(modules, dir)).filter((f) => name.test(basename(f)))
    if (candidates.length === 0) return errors.push(`${what}: no ${name.source} under node_modules/${dir} (${fix})`)
    const wrong = candidates.filter((f) => !fits(f))
    if (wrong.length === candidates.length) {
      errors.push(`${what}: ${wrong.map((f) => relative(modules, f)).join(', ')} is not a ${os} ${arch} binary (${describe(wrong[0])}); ${fix}`)
    }
  }
  const install = `run: node scripts/packaging/install-target.mjs ${os} ${arch}`
  expectBinary('keychain (@napi-rs/keyring)', spec.keyring, /^keyring\..*\.node$/, install)
  if (spec.sqliteVec) expectBinary('knowledge bases (sqlite-vec)', spec.sqliteVec, /^vec0\.(so|dylib|dll)$/, install)
  else errors.push(`knowledge bases (sqlite-vec): no build is published for ${os} ${arch}; this target is not supported`)
  expectBinary('database (better-sqlite3)', 'better-sqlite3/prebuilds', new RegExp(`^${spec.betterSqlite}\\.node$`), 'reinstall better-sqlite3 (its package carries every prebuild)')
  expectBinary('built-in engine (node-llama-cpp)', `${spec.engine}/bins/${spec.engineDir}`, /^llama-addon\.node$/, install)
  if (os === 'linux') errors.push(...missingEngineLibraries(join(modules, spec.engine, 'bins', spec.engineDir), install))
  for (const file of filesUnder(modules)) {
    if (!NATIVE_FILE.test(file)) continue
    const found = binaryArch(headerOf(file))
    if (found && (found.format !== format || !found.archs.includes(arch))) warnings.push(`${relative(modules, file)} is a ${found.format} ${found.archs.join('+')} binary, unused on ${os} ${arch}`)
  }
  return { errors, warnings }
}

/**
 * The shared libraries an ELF file names in its dynamic section (DT_NEEDED), in order; [] when it
 * is not a 64-bit little-endian ELF or has none.
 * @param {Buffer} b the whole file
 * @returns {string[]}
 */
export function elfNeeded(b) {
  if (b.length < 64 || b[0] !== 0x7f || b.toString('latin1', 1, 4) !== 'ELF' || b[4] !== 2 || b[5] !== 1) return []
  const shoff = Number(b.readBigUInt64LE(0x28))
  const shentsize = b.readUInt16LE(0x3a)
  const shnum = b.readUInt16LE(0x3c)
  /** @param {number} i */
  const section = (i) => {
    const at = shoff + i * shentsize
    return { type: b.readUInt32LE(at + 4), offset: Number(b.readBigUInt64LE(at + 0x18)), size: Number(b.readBigUInt64LE(at + 0x20)), link: b.readUInt32LE(at + 0x28) }
  }
  if (shoff === 0 || shoff + shnum * shentsize > b.length) return []
  for (let i = 0; i < shnum; i++) {
    const dyn = section(i)
    if (dyn.type !== 6) continue // SHT_DYNAMIC
    const strtab = section(dyn.link)
    const names = []
    for (let at = dyn.offset; at + 16 <= dyn.offset + dyn.size; at += 16) {
      const tag = b.readBigUInt64LE(at)
      if (tag === 0n) break
      if (tag !== 1n) continue // DT_NEEDED
      const start = strtab.offset + Number(b.readBigUInt64LE(at + 8))
      names.push(b.toString('latin1', start, b.indexOf(0, start)))
    }
    return names
  }
  return []
}

/**
 * The engine's own shared libraries are files beside its addon (its RUNPATH is $ORIGIN): every
 * library the addon and those libraries name that is not the system's must be there, and so must
 * one CPU backend (ggml loads a libggml-cpu-*.so at run time, named nowhere).
 * @param {string} dir the prebuilt's bins folder @param {string} fix
 * @returns {string[]}
 */
function missingEngineLibraries(dir, fix) {
  const addon = join(dir, 'llama-addon.node')
  if (!existsSync(addon)) return []
  const system = /^(libc|libm|libdl|librt|libpthread|libgcc_s|libstdc\+\+|ld-linux[-\w]*|libgomp|libvulkan|libcuda|libcudart|libcublas|libcublasLt)\.so(\.\d+)*$/
  const missing = new Set()
  const seen = new Set()
  const queue = ['llama-addon.node']
  while (queue.length) {
    const name = /** @type {string} */ (queue.shift())
    if (seen.has(name)) continue
    seen.add(name)
    const file = join(dir, name)
    if (!existsSync(file)) {
      missing.add(name)
      continue
    }
    for (const needed of elfNeeded(readFileSync(file))) if (!system.test(needed)) queue.push(needed)
  }
  const errors = [...missing].map((name) => `built-in engine (node-llama-cpp): ${name}, which the engine loads, is not beside llama-addon.node (${fix})`)
  if (!readdirSync(dir).some((f) => /^libggml-cpu-.*\.so$/.test(f))) errors.push(`built-in engine (node-llama-cpp): no CPU backend (libggml-cpu-*.so) beside llama-addon.node (${fix})`)
  return errors
}

/** @param {string | undefined} file */
function describe(file) {
  if (!file) return 'missing'
  const found = binaryArch(headerOf(file))
  return found ? `${found.format} ${found.archs.join('+')}` : 'not a native binary'
}
