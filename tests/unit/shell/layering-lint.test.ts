import { describe, expect, it } from 'vitest'
import { ESLint } from 'eslint'

// The import direction of docs/architecture.md, enforced by eslint.config.js. Each case lints
// a line of code as if it lived in the given folder.
const eslint = new ESLint({ cwd: process.cwd() })

async function layeringErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport const used = x\n`, { filePath })
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message)
}

describe('layering lint rule', () => {
  it.each([
    ['a renderer file importing core', 'src/renderer/features/x.ts', "import { x } from '../../core/index'"],
    ['a renderer file importing Node', 'src/renderer/x.ts', "import { x } from 'node:fs'"],
    ['a renderer file importing an SDK', 'src/renderer/x.ts', "import x from 'openai'"],
    ['a renderer file importing electron', 'src/renderer/x.ts', "import { x } from 'electron'"],
    ['shared importing core', 'src/shared/x.ts', "import { x } from '../core/index'"],
    ['shared importing Node', 'src/shared/x.ts', "import { x } from 'node:path'"],
    ['core importing electron', 'src/core/x.ts', "import { x } from 'electron'"],
    ['core importing the server', 'src/core/x.ts', "import { x } from '../server/server'"],
    ['the server importing the Electron shell', 'src/server/x.ts', "import { x } from '../main/index'"],
    ['main importing the renderer', 'src/main/x.ts', "import { x } from '../renderer/app'"],
    ['preload importing core', 'src/preload/x.ts', "import { x } from '../core/index'"]
  ])('refuses %s', async (_name, file, code) => {
    expect(await layeringErrors(file, code)).not.toEqual([])
  })

  it.each([
    ['the renderer importing shared', 'src/renderer/x.ts', "import { x } from '../shared/bridge/client'"],
    ['core importing shared and Node', 'src/core/x.ts', "import { x } from '../shared/x'\nimport { y as x2 } from 'node:fs'"],
    ['main importing core and electron', 'src/main/x.ts', "import { x } from '../core/index'\nimport { app as x3 } from 'electron'"],
    ['the server importing core', 'src/server/x.ts', "import { x } from '../core/index'"]
  ])('allows %s', async (_name, file, code) => {
    expect(await layeringErrors(file, code)).toEqual([])
  })
})
