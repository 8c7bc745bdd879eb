import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { lookupModelProperty } from '../../src/shared/catalogue/lookup'
import { loadMergedList } from '../../src/shared/catalogue/loader'
import { medianMs, report } from './util'
import { REFERENCE_FACTS } from '../fixtures/fixture-paths'

/**
 * Catalogue load times. "Cold" means a fresh Node process per run: the child imports the
 * loader module first (untimed: TypeScript compilation by tsx is a dev-mode cost the bundled
 * app does not pay), then times only the catalogue work — the first dynamic import (read +
 * parse) of one provider's file, of all 58 files merged, or a lookup that loads one file.
 * The baseline is the same kind of child reading and JSON.parse-ing the 1 MB reference file.
 * Each figure is the median of RUNS processes.
 */
const RUNS = 7
const root = join(import.meta.dirname, '..', '..')
const loader = pathToFileURL(join(root, 'src/shared/catalogue/loader.ts')).href
const lookup = pathToFileURL(join(root, 'src/shared/catalogue/lookup.ts')).href
const reference = REFERENCE_FACTS

const programs: Record<string, string> = {
  baseline: `import { readFileSync } from 'node:fs'
    const t0 = performance.now(); const facts = JSON.parse(readFileSync(${JSON.stringify(reference)}, 'utf8'))
    const t1 = performance.now(); if (!facts.models.openai) throw new Error('bad'); console.log(t1 - t0)`,
  one: `const l = await import(${JSON.stringify(loader)})
    const t0 = performance.now(); const m = await l.loadProviderModels('openai')
    const t1 = performance.now(); if (!m.length) throw new Error('bad'); console.log(t1 - t0)`,
  merged: `const l = await import(${JSON.stringify(loader)})
    const t0 = performance.now(); const m = await l.loadMergedList()
    const t1 = performance.now(); if (m.length !== 1477) throw new Error('bad'); console.log(t1 - t0)`,
  lookup: `const k = await import(${JSON.stringify(lookup)})
    const t0 = performance.now(); const v = await k.getModelProperty('gpt-4o', 'contextWindowTokens', 'openai')
    const t1 = performance.now(); if (!v) throw new Error('bad'); console.log(t1 - t0)`
}

function coldMs(name: string): number {
  const times: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', programs[name]!], { cwd: root, encoding: 'utf8' })
    times.push(Number(out.trim().split('\n').pop()))
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]!
}

export default async function catalogueBench(): Promise<void> {
  const baseline = coldMs('baseline')
  const baseLabel = 'JSON.parse reference (cold)'
  report('cold: one provider (openai, 71 models)', coldMs('one'), baseLabel, baseline)
  report('cold: full merged list (58 files, 1,477)', coldMs('merged'), baseLabel, baseline)
  report('cold: lookup by id (loads one file)', coldMs('lookup'), baseLabel, baseline)

  // Warm: a lookup in the merged list next to a find over the parsed reference, same process.
  const list = await loadMergedList()
  const facts = JSON.parse(readFileSync(reference, 'utf8')) as { models: Record<string, Array<{ id: string; contextWindowTokens?: number }>> }
  const warm = await medianMs(() => lookupModelProperty(list, 'glm-4.5-flash', 'contextWindowTokens', 'zhipu'), 200, 20)
  const warmBase = await medianMs(() => facts.models['zhipu']!.find((m) => m.id === 'glm-4.5-flash')?.contextWindowTokens, 200, 20)
  report('warm: lookup by id in the merged list', warm, 'find in parsed reference', warmBase)
}
