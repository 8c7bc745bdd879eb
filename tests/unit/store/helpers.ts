import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openStore, type OpenStoreOptions } from '../../../src/core/store'
import type { Store } from '../../../src/core/store/store'

/** A fresh data folder per test; removed by `cleanup`. */
export function tempDir(prefix = 'sb-store-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

export function openTemp(options: Partial<OpenStoreOptions> = {}): { store: Store; dir: string; notices: string[]; cleanup(): void } {
  const temp = tempDir()
  const { store, notices } = openStore({ dataDir: temp.dir, dailyBackupMs: 0, ...options })
  return {
    store,
    dir: temp.dir,
    notices,
    cleanup: () => {
      store.close()
      temp.cleanup()
    }
  }
}

/** An agent and a conversation to hang messages on. */
export function seed(store: Store, name = 'Helper') {
  const agent = store.agents.create({ name })
  const conversation = store.conversations.create({ agentId: agent.id, title: `${name} chat` })
  return { agent, conversation }
}
