import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import { searchKeyName } from '../../../src/core/tools/tool-service'
import { startTestCore } from '../test-core'

let core: Core | undefined
let dir = ''
afterEach(async () => {
  await core?.close()
  rmSync(dir, { recursive: true, force: true })
})

it('a web-search key goes to the keychain under the provider’s name and nowhere in the data folder', async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-search-key-'))
  const backend = new MemoryBackend()
  core = (await startTestCore('sb-search-key-', { dataDir: dir, secrets: { backend } })).core
  const key = 'tvly-search-key-0123456789'
  const set = await core.router.call('tools.setSearchKey', { provider: 'tavily', apiKey: key })
  expect(set.ok).toBe(true)
  expect(await core.services().secrets.readForRuntime(searchKeyName('tavily'))).toBe(key)
  // SearXNG takes no key: the schema refuses one.
  expect((await core.router.call('tools.setSearchKey', { provider: 'searxng', apiKey: key })).ok).toBe(false)
  await core.close()
  core = undefined
  for (const file of readdirSync(dir, { recursive: true }) as string[]) {
    try {
      expect(readFileSync(join(dir, file)).includes(key)).toBe(false)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EISDIR') throw error
    }
  }
})
