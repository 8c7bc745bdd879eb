import { execFileSync } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

// The packaged app and the npm package ship `dependencies` and nothing else of node_modules.
// So every module the built bundles import at run time must be a dependency (or it is missing
// at launch), and every dependency must be imported by them (or it is dead weight in the asar,
// as tsx and its 11 MB esbuild binary were). This reads the real build output.
const root = resolve(import.meta.dirname, '../../..')
const out = join(root, 'out')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }

/** Node's own modules and Electron (the runtime itself) are never installed from npm. */
const provided = (name: string) => name === 'electron' || name.startsWith('node:') || builtinModules.includes(name)
/** `@scope/name/sub/path` → `@scope/name`; `name/sub` → `name`. */
const packageName = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/')

interface Imports {
  static: string[]
  dynamic: string[]
}

/** Specifiers a built ES module (or the CommonJS preload) imports; comments and strings of code are not parsed. */
function importsOf(code: string): Imports {
  const statics = [...code.matchAll(/^\s*(?:import|export)\s*(?:[^'";]*?\sfrom\s*)?["']([^"']+)["']/gm), ...code.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)]
  // `createRequire(import.meta.url)("x")` is how the bundle keeps a lazy require (sqlite-vec).
  const dynamics = [...code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*(?:,[^)]*)?\)/g), ...code.matchAll(/\bcreateRequire\([^)]*\)\(\s*["']([^"']+)["']\s*\)/g)]
  return { static: statics.map((m) => m[1]!), dynamic: dynamics.map((m) => m[1]!) }
}

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : /\.(c|m)?js$/.test(e.name) ? [join(dir, e.name)] : []))

/** The npm packages a bundle entry loads before its first line runs: static imports, followed through its own chunks. */
function loadedAtStart(entry: string): Set<string> {
  const seen = new Set<string>()
  const packages = new Set<string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    for (const spec of importsOf(readFileSync(file, 'utf8')).static) {
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec))
      else if (!provided(spec)) packages.add(packageName(spec))
    }
  }
  visit(entry)
  return packages
}

describe('what the built app imports at run time', () => {
  it('is exactly the package.json dependencies: none missing, none unused', () => {
    const imported = new Set<string>()
    for (const file of [...files(join(out, 'main')), ...files(join(out, 'preload'))]) {
      const { static: s, dynamic: d } = importsOf(readFileSync(file, 'utf8'))
      for (const spec of [...s, ...d]) if (!spec.startsWith('.') && !provided(spec)) imported.add(packageName(spec))
    }
    expect([...imported].sort()).toEqual(Object.keys(pkg.dependencies).sort())
    // The two that used to ship without being run.
    expect(pkg.dependencies).not.toHaveProperty('tsx')
    expect(pkg.dependencies).not.toHaveProperty('ws')
  })

  it('main, server and CLI start without loading a provider SDK or the keyring addon (each loads on first use)', () => {
    const lazy = ['openai', '@anthropic-ai/sdk', '@google/genai', 'ollama', '@aws-sdk/client-bedrock-runtime', '@napi-rs/keyring']
    for (const entry of ['main/index.js', 'main/server.js', 'main/cli.js']) {
      const atStart = loadedAtStart(join(out, entry))
      expect({ entry, atStart: lazy.filter((name) => atStart.has(name)) }).toEqual({ entry, atStart: [] })
    }
    // …and they are still reachable: each is a dynamic import somewhere in the build.
    const dynamic = new Set(files(join(out, 'main')).flatMap((f) => importsOf(readFileSync(f, 'utf8')).dynamic.map(packageName)))
    for (const name of lazy) expect(dynamic.has(name), name).toBe(true)
  })

  it('the CLI and the server run as built JavaScript: no TypeScript loader anywhere at run time', () => {
    const bin = readFileSync(join(root, 'bin/switchboard.mjs'), 'utf8')
    expect(importsOf(bin).static.concat(importsOf(bin).dynamic).filter((s) => s.includes('tsx'))).toEqual([])
    const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
    expect(scripts['serve']).toMatch(/node out\/main\/server\.js/)
    const help = execFileSync(process.execPath, [join(root, 'bin/switchboard.mjs'), '--help'], { encoding: 'utf8' })
    expect(help).toMatch(/Usage: switchboard <command>/)
  })

  it('the packaged app leaves out the server, and ships the CLI that its executable runs for a command', () => {
    const config = parse(readFileSync(join(root, 'electron-builder.yml'), 'utf8')) as { files: string[] }
    expect(config.files).toEqual(expect.arrayContaining(['out/**', '!out/main/server.js']))
    expect(config.files).not.toContain('!out/main/cli.js')
    // Leaving the server out is safe only while nothing main loads imports it (shared code lives in chunks/).
    for (const file of files(join(out, 'main'))) {
      const { static: s, dynamic: d } = importsOf(readFileSync(file, 'utf8'))
      expect({ file, imports: [...s, ...d].filter((spec) => /(^|\/)server\.js$/.test(spec)) }).toEqual({ file, imports: [] })
    }
    // Main loads the CLI only when launched with a command: by its URL, never at start.
    const main = readFileSync(join(out, 'main/index.js'), 'utf8')
    expect(main).toContain('new URL("./cli.js", import.meta.url)')
    expect(importsOf(main).static.filter((spec) => /cli\.js$/.test(spec))).toEqual([])
  })
})
