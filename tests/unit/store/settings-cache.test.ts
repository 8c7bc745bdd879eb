import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { importFile } from '../../../src/core/store/import-file'
import { openTemp } from './helpers'

// Issue 19: a reply asks the settings several questions; the table is read and parsed once per
// change, not once per question. A change through the repository or through an import is seen.

let cleanup: (() => void) | undefined
afterEach(() => cleanup?.())

describe('typed settings are parsed once per change', () => {
  it('gives the same parsed settings until the table changes, then the new values', async () => {
    const t = openTemp()
    cleanup = t.cleanup
    const first = t.store.settings.app()
    expect(t.store.settings.app()).toBe(first)
    t.store.settings.set({ searchMaxResults: 7 })
    const second = t.store.settings.app()
    expect(second).not.toBe(first)
    expect(second.searchMaxResults).toBe(7)
    expect(t.store.settings.app()).toBe(second)

    // An import writes rows without the repository; the caller that ran it invalidates.
    const file = join(t.dir, 'settings-export.json')
    writeFileSync(
      file,
      JSON.stringify({ format: 'switchboard-export', version: 1, appVersion: 't', exportedAt: 1, data: { agents: [], conversations: [], topics: [], messages: [], settings: { contextLengths: { 'ollama/llama3': 8192 } } } })
    )
    await importFile(t.store.db, file)
    t.store.settings.invalidate()
    expect(t.store.settings.app().contextLengths).toEqual({ 'ollama/llama3': 8192 })
    expect(t.store.settings.app().searchMaxResults).toBe(7)
  })

  it('hands out copies of the raw table, so a caller that changes one changes nothing stored', () => {
    const t = openTemp()
    cleanup = t.cleanup
    t.store.settings.set({ searchMaxResults: 3 })
    const raw = t.store.settings.get()
    raw['searchMaxResults'] = 30
    expect(t.store.settings.get()['searchMaxResults']).toBe(3)
    expect(t.store.settings.app().searchMaxResults).toBe(3)
  })
})
