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
    ['preload importing core', 'src/preload/x.ts', "import { x } from '../core/index'"],
    ['a renderer feature importing one that composes it (artifacts → chat)', 'src/renderer/features/artifacts/x.tsx', "import { x } from '../chat/chat-store'"],
    ['the first feature importing the last (providers → palette)', 'src/renderer/features/providers/x.ts', "import { x } from '../palette/command-palette'"],
    ['a nested feature file importing a page above its feature', 'src/renderer/features/tools/sub/x.ts', "import { x } from '../../settings/settings-page'"],
    ['a renderer feature importing Node (the layer holds inside features)', 'src/renderer/features/chat/x.ts', "import { x } from 'node:fs'"],
    ['a component importing a feature', 'src/renderer/components/x.tsx', "import { x } from '../features/chat/chat-store'"],
    ['a store importing a feature', 'src/renderer/stores/x.ts', "import { x } from '../features/providers/providers-store'"],
    ['a CLI command importing the core statically', 'src/cli/commands/x.ts', "import { x } from '../../core/runtime/key-source'"],
    ['the CLI entry importing the core statically', 'src/cli/main.ts', "import { x } from '../core/store'"]
  ])('refuses %s', async (_name, file, code) => {
    expect(await layeringErrors(file, code)).not.toEqual([])
  })

  it.each([
    ['the renderer importing shared', 'src/renderer/x.ts', "import { x } from '../shared/bridge/client'"],
    ['core importing shared and Node', 'src/core/x.ts', "import { x } from '../shared/x'\nimport { y as x2 } from 'node:fs'"],
    ['main importing core and electron', 'src/main/x.ts', "import { x } from '../core/index'\nimport { app as x3 } from 'electron'"],
    ['the server importing core', 'src/server/x.ts', "import { x } from '../core/index'"],
    ['chat importing a feature it composes', 'src/renderer/features/chat/x.tsx', "import { x } from '../knowledge/reply-sources'"],
    ['a nested chat file importing chat and a feature below it', 'src/renderer/features/chat/competition/x.tsx', "import { x } from '../chat-store'\nimport { y as x4 } from '../../providers/providers-store'"],
    ['a feature importing shared code whose folder is named like a later feature', 'src/renderer/features/providers/x.ts', "import { x } from '../../../shared/data/message'"],
    ['a component importing another component', 'src/renderer/components/x.tsx', "import { x } from './page'"],
    ['a CLI command importing core types, and the core inside run()', 'src/cli/commands/x.ts', "import type { x } from '../../core/runtime/types'\nexport const y = () => import('../../core/store')"],
    ['the CLI entry importing the version', 'src/cli/main.ts', "import { x } from '../core/version'"]
  ])('allows %s', async (_name, file, code) => {
    expect(await layeringErrors(file, code)).toEqual([])
  })
})
