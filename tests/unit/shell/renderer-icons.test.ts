import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

// Issue 17: one SVG icon library (lucide-react) throughout; no emoji, dingbats or full-width
// characters standing in for icons, and no hand-drawn <svg>.
const ROOT = 'src/renderer'

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    return e.isDirectory() ? files(path) : path.endsWith('.tsx') ? [path] : []
  })
}

// Emoji and pictographs, arrows and dingbats used as glyphs, and full-width forms.
const ICONISH = /[\u{1F300}-\u{1FAFF}\u{2190}-\u{21FF}\u{2600}-\u{27BF}\u{2B00}-\u{2BFF}\u{FF01}-\u{FF5E}▴▾▸◂]|>\s*×\s*</u

describe('icons come from one SVG library (issue 17)', () => {
  const all = files(ROOT)

  it('finds the renderer files', () => expect(all.length).toBeGreaterThan(20))

  it('no emoji or full-width characters as icons in JSX', () => {
    const offenders = all.flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .map((line, i) => ({ f, i: i + 1, line }))
        .filter(({ line }) => !/^(\/\/|\/?\*|\{\/\*)/.test(line.trim()) && ICONISH.test(line))
    )
    expect(offenders.map((o) => `${o.f}:${o.i}: ${o.line.trim()}`)).toEqual([])
  })

  it('no hand-drawn inline <svg>', () => {
    expect(all.filter((f) => /<svg[\s>]/.test(readFileSync(f, 'utf8')))).toEqual([])
  })
})
