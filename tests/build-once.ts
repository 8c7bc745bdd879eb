import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'

// Vitest global setup. Several tests run what the build produces (bin/switchboard.mjs runs
// out/main/cli.js; the preload and packaging tests read out/). `npm test` builds just before
// them; a bare `vitest run` or `npm test -- unit` builds here when out/ is missing or older than
// a source file, so no test ever runs a stale build.
const root = resolve(import.meta.dirname, '..')
const outputs = ['out/main/index.js', 'out/main/cli.js', 'out/main/server.js', 'out/main/engine-host.js', 'out/preload/index.cjs'].map((f) => join(root, f))

function newestSource(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs)
  }
  return newest
}

export default function setup(): void {
  const built = outputs.every(existsSync) ? Math.min(...outputs.map((f) => statSync(f).mtimeMs)) : 0
  const sources = Math.max(newestSource(join(root, 'src')), newestSource(join(root, 'catalogue')), statSync(join(root, 'electron.vite.config.ts')).mtimeMs)
  if (built >= sources) return
  execFileSync(join(root, 'node_modules/.bin/electron-vite'), ['build'], { cwd: root, stdio: 'ignore' })
}
