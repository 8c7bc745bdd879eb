import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { pullCommand } from '../../../src/cli/commands/pull'
import { HF_TOKEN_HINT } from '../../../src/core/models-library/file-download'

// The renderer's files are another TypeScript project: read as text here.
const source = (path: string) => readFileSync(resolve(import.meta.dirname, '../../../src/renderer', path), 'utf8')
const sections = [...source('components/settings-sections.ts').matchAll(/\{ id: '([\w-]+)', label: '(\w+)\.(\w+)' \}/g)].map((m) => ({ id: m[1]!, group: m[2]!, key: m[3]! }))
/** The English text of `group.key` in the locale file. */
function label(group: string, key: string): string | undefined {
  const en = source('i18n/locales/en.ts')
  const start = en.indexOf(`\n  ${group}: {`)
  if (start < 0) return undefined
  const block = en.slice(start, en.indexOf('\n  },', start))
  return new RegExp(`\\n    ${key}: '([^']*)'`).exec(block)?.[1]
}

describe('an error that needs a Hugging Face token names a place that exists', () => {
  it('the Settings section it names is in Settings (index and page), with the token field', () => {
    const named = /Settings → ([^(,]+?) \(/.exec(HF_TOKEN_HINT)?.[1]
    expect(named).toBeTruthy()
    expect(sections.length).toBeGreaterThan(5)
    const section = sections.find((s) => label(s.group, s.key) === named)
    expect(section, `no Settings section is called "${named}"`).toBeDefined()
    const page = source('features/settings/settings-page.tsx')
    expect(page).toContain(`id="${section!.id}"`)
    expect(page).toContain('<ModelLibrarySettingsSection />')
    const form = source('features/local-models/model-library-section.tsx')
    expect(form).toMatch(/function ModelLibrarySettingsSection[\s\S]*<LibrarySettingsForm \/>/)
    expect(form).toMatch(/function LibrarySettingsForm[\s\S]*t\('library.token'\)/)
  })

  it('the CLI help names HF_TOKEN and the same Settings section', () => {
    expect(HF_TOKEN_HINT).toContain('HF_TOKEN')
    expect(pullCommand.usage).toContain('HF_TOKEN')
    expect(pullCommand.usage).toContain(/Settings → [^(,]+/.exec(HF_TOKEN_HINT)![0].trim())
  })
})
