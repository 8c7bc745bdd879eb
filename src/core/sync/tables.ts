import type { SyncScope } from '../../shared/bridge/procedures/sync'
import { DEFAULT_AGENT, installedDefaultAgent } from '../store/repositories/agents'

/**
 * What is synced, table by table. `fields`: each column merges on its own (last writer wins by
 * its clock stamp); `row`: the row is one value (messages never change after they are complete;
 * an edit is a new message, a branch). `parent`: a deleted parent that still has children the
 * deleting device never saw is restored instead (nothing is lost silently).
 */
export interface SyncedTable {
  name: 'agents' | 'conversations' | 'topics' | 'messages' | 'files' | 'image_generations' | 'settings'
  pk: string
  mode: 'fields' | 'row'
  scope: keyof SyncScope
  /** Local-only columns (the insertion counter of messages). */
  skip?: readonly string[]
  parent?: { table: SyncedTable['name']; column: string }
  /**
   * A record every install creates under the same key, with the columns it starts with (times
   * left out). Its first stamp gives what still holds those values the install stamp, older than
   * any edit (change-log.ts): it is no one's change.
   */
  installed?: (key: string) => Record<string, string | number | null> | undefined
}

/** In dependency order: parents before children (deletes run the other way). */
export const SYNCED_TABLES: readonly SyncedTable[] = [
  { name: 'agents', pk: 'id', mode: 'fields', scope: 'agents', installed: (key) => (key === DEFAULT_AGENT.id ? installedDefaultAgent() : undefined) },
  { name: 'conversations', pk: 'id', mode: 'fields', scope: 'conversations', parent: { table: 'agents', column: 'agent_id' } },
  { name: 'topics', pk: 'id', mode: 'fields', scope: 'conversations', parent: { table: 'conversations', column: 'conversation_id' } },
  { name: 'messages', pk: 'id', mode: 'row', scope: 'conversations', skip: ['seq'], parent: { table: 'conversations', column: 'conversation_id' } },
  { name: 'files', pk: 'id', mode: 'row', scope: 'images' },
  { name: 'image_generations', pk: 'id', mode: 'row', scope: 'images' },
  { name: 'settings', pk: 'key', mode: 'fields', scope: 'settings' }
]

export const tableByName = new Map(SYNCED_TABLES.map((t) => [t.name, t]))

/**
 * Settings that describe this machine, never another: the local API (its port, keys' limits),
 * tool servers (programs and paths on this host) and their switches, local model servers'
 * addresses. Anything not listed here and not matching a prefix below syncs.
 */
export const DEVICE_LOCAL_SETTINGS: readonly string[] = ['localApi', 'tools', 'toolServers', 'ollama', 'lmstudio', 'vllm', 'xinference']
const DEVICE_LOCAL_PREFIXES = /^(sync|window|dataFolder|data-folder|engine|builtin|local|backup|update)/i

export const isDeviceLocalSetting = (key: string) => DEVICE_LOCAL_SETTINGS.includes(key) || DEVICE_LOCAL_PREFIXES.test(key)
