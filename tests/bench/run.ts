import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

// `npm run bench [name…]`: runs every tests/bench/*.bench.ts (or the named ones). Each file
// default-exports an async function that measures against a baseline taken in the same run
// and prints ratios: machines here are noisy, absolute times are not comparable.
const dir = import.meta.dirname
const only = process.argv.slice(2)
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
  .sort()
for (const file of files) {
  console.log(`\n=== ${file.replace('.bench.ts', '')} ===`)
  const mod = (await import(pathToFileURL(join(dir, file)).href)) as { default: () => Promise<void> }
  await mod.default()
}
process.exit(0)
