import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openStore } from '../../../src/core/store'
import type { Store } from '../../../src/core/store'
import { importFile } from '../../../src/core/store/import-file'

// A file that is valid JSON but not something we can import says what is wrong and where, and a
// file with one enormous value is refused by its size before it is parsed (the app stays responsive).
let dir: string | undefined
let store: Store | undefined
afterEach(() => {
  store?.close()
  store = undefined
  if (dir) rmSync(dir, { recursive: true, force: true })
})

function setup(text: string) {
  dir = mkdtempSync(join(tmpdir(), 'sb-import-errors-'))
  store = openStore({ dataDir: join(dir, 'data'), dailyBackupMs: 0 }).store
  const file = join(dir, 'file.json')
  writeFileSync(file, text)
  return { db: store.db, file }
}

const header = { format: 'switchboard-export', version: 1, appVersion: '1.0.0', exportedAt: 1 }
const fileWith = (data: object) => JSON.stringify({ ...header, data: { agents: [], conversations: [], topics: [], messages: [], settings: {}, ...data } })
const agent = (id: string, extra: object = {}) => ({ id, name: `Agent ${id}`, systemPrompt: '', parameters: {}, tags: [], createdAt: 1, updatedAt: 1, ...extra })
const message = (id: string) => ({ id, conversationId: 'c1', role: 'user', content: 'hello', status: 'complete', createdAt: 1 })

const failure = async (text: string) => {
  const { db, file } = setup(text)
  return importFile(db, file).then(
    () => 'imported',
    (e: { error?: { message: string } }) => e.error?.message ?? String(e)
  )
}

describe('import errors say what is wrong and where', () => {
  it('a JSON value of the wrong type at the top', async () => {
    expect(await failure('[1, 2, 3]')).toMatch(/holds a JSON array, not an export object/)
    expect(await failure('"just a string"')).toMatch(/holds a JSON string, not an export object/)
  })

  it('nesting too deep, with where', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000)
    const text = fileWith({}).replace('"settings":{}', `"settings":{"voice":${deep}}`)
    const message = await failure(text)
    expect(message).toMatch(/data\.settings/)
    expect(message).toMatch(/nested too deeply/)
  })

  it('one huge string is refused by size, naming the row, without parsing it', async () => {
    const huge = fileWith({ agents: [agent('a1', { systemPrompt: 'x'.repeat(40 * 1024 * 1024) })] })
    const started = Date.now()
    const message = await failure(huge)
    expect(message).toMatch(/data\.agents\.0 is 40 MB; the largest row an import reads is 16 MB/)
    expect(Date.now() - started).toBeLessThan(10_000)
  }, 60_000)

  it('truncated text says where it stops', async () => {
    const text = fileWith({ agents: [agent('a1'), agent('a2')] })
    expect(await failure(text.slice(0, text.indexOf('a2') + 10))).toMatch(/not valid JSON at data\.agents\.1/)
  })

  it('duplicate ids in one file are reported, not dropped silently', async () => {
    const { db, file } = setup(fileWith({ agents: [agent('a1'), agent('a1'), agent('a2')] }))
    const report = await importFile(db, file)
    expect(report.added.agents).toBe(2)
    expect(report.duplicates).toEqual([{ kind: 'agents', id: 'a1', index: 1 }])
    void message
  })
})
