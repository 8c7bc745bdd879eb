import { AppErrorException } from '../../shared/errors/app-error'
import { makeBackup } from '../store/backup'
import { readSchemaVersion } from '../store/migrate'
import type { Store } from '../store/store'

/**
 * Agent actions with a rule beyond a row write. Deleting an agent deletes its conversations
 * (the schema cascades), so: never while one of them is still receiving a reply, and, when it
 * has any, only after a backup that holds them (the Data page can restore it).
 */
export class AgentsService {
  constructor(private readonly deps: { store: Store; dataDir: string; activeConversations: () => Set<string> }) {}

  delete(id: string): { deleted: boolean; conversations?: number; backupAt?: number } {
    const { store, dataDir } = this.deps
    const conversations = store.conversations.list({ agentId: id })
    if (conversations.length === 0) return { deleted: store.agents.delete(id) }
    const active = this.deps.activeConversations()
    if (conversations.some((c) => active.has(c.id)))
      throw new AppErrorException({ errorType: 'ValidationError', status: 409, message: 'A reply is still being written in one of this agent’s conversations; stop it or wait, then delete the agent.' })
    const backup = store.guard(() => makeBackup(store.db.sqlite, dataDir, 'auto', readSchemaVersion(store.db.sqlite)))
    return { deleted: store.agents.delete(id), conversations: conversations.length, backupAt: backup.at }
  }
}
