import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

// The folders of src/core as layers (docs/architecture.md "Core layers"), checked by the script
// that computes the folder graph from the import lines.
const script = join(process.cwd(), 'scripts', 'check-layers.mjs')
const scratch = mkdtempSync(join(tmpdir(), 'sb-layers-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

function tree(files: Record<string, string>, doc: string): string[] {
  const root = mkdtempSync(join(scratch, 'core-'))
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, 'core', path)), { recursive: true })
    writeFileSync(join(root, 'core', path), text)
  }
  writeFileSync(join(root, 'architecture.md'), doc)
  return ['--core', join(root, 'core'), '--doc', join(root, 'architecture.md')]
}

const run = (args: string[]) => spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' })

describe('src/core folders as layers', () => {
  it('no arrow of src/core points up unless docs/architecture.md names it, and no cycle stays inside a layer', () => {
    const out = execFileSync(process.execPath, [script], { encoding: 'utf8' })
    expect(out).not.toMatch(/NOT NAMED|no layer names|no longer an arrow|no named arrow explains/)
  })

  it('refuses an upward arrow the doc does not name, and says which file makes it', () => {
    const args = tree({ 'log/logger.ts': "import { x } from '../chat/chat-service'\n", 'chat/chat-service.ts': 'export const x = 1\n' }, '# doc\n')
    const result = run(args)
    expect(result.status).toBe(1)
    expect(result.stdout).toContain('up: log → chat  (src/core/log/logger.ts)  NOT NAMED')
  })

  it('accepts it once named with a reason, and refuses a named arrow that is gone', () => {
    const named = '### Core layers\n\n- `log → chat`: a reason.\n\n## Next\n'
    const files = { 'log/logger.ts': "import type { x } from '../chat'\n", 'chat/index.ts': 'export type x = 1\n' }
    expect(run(tree(files, named)).status).toBe(0)
    const gone = run(tree({ 'log/logger.ts': '', 'chat/index.ts': '' }, named))
    expect(gone.status).toBe(1)
    expect(gone.stdout).toContain('named in docs/architecture.md but no longer an arrow: log → chat')
  })

  it('refuses a cycle inside one layer and a folder no layer names', () => {
    const cycle = run(tree({ 'caller/a.ts': "import '../speech/b'\n", 'speech/b.ts': "import { a } from '../caller/a'\n" }, '# doc\n'))
    expect(cycle.status).toBe(1)
    expect(cycle.stdout).toContain('a cycle no named arrow explains: caller speech')
    const unplaced = run(tree({ 'newfolder/a.ts': "export * from '../log/logger'\n", 'log/logger.ts': '' }, '# doc\n'))
    expect(unplaced.status).toBe(1)
    expect(unplaced.stdout).toContain('no layer names newfolder')
  })
})
