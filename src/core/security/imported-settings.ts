import { z } from 'zod'
import { appSettingsSchemas, TRANSFERABLE_FEATURE_KEYS } from '../../shared/data/app-settings'
import type { JsonObject, JsonValue } from '../../shared/data/json'
import type { RefusedSetting } from '../../shared/data/export-file'
import type { ClientReach } from './client-policy'

/**
 * The one gate for settings rows that come from outside the procedures that own them (an import
 * file's `data.settings`): each key is checked with the schema of the procedure that writes it
 * (Settings, Settings → Tools) and under the same policy for this client (client-policy.ts).
 * What does not pass is left out and listed with why, never written as it came. It works on the
 * raw rows (store.settings.get / set) because it must name each refused key; the keys
 * themselves and their stored shapes are defined once in shared/data/app-settings.ts, and the
 * tool schemas here are a file's tighter bounds on top of those (lengths, addresses, no extra fields).
 */

const id = z.string().min(1).max(200)
const searchProvider = z.enum(['searxng', 'tavily', 'brave', 'exa', 'jina', 'google'])
const httpUrl = z.url({ protocol: /^https?$/ }).max(4000)

/** A stored tool server (src/shared/tools/types.ts ToolServerConfig): names of secrets only. */
const toolServerConfigSchema = z
  .object({
    id,
    name: z.string().min(1).max(100),
    transport: z.enum(['stdio', 'http', 'sse']),
    command: z.string().min(1).max(4000).optional(),
    args: z.array(z.string().max(4000)).max(100).optional(),
    cwd: z.string().max(4000).optional(),
    url: httpUrl.optional(),
    secretEnv: z.array(z.string().min(1).max(200)).max(100).optional(),
    secretHeaders: z.array(z.string().min(1).max(200)).max(100).optional(),
    enabled: z.boolean(),
    timeoutMs: z.number().int().min(1000).max(24 * 3600_000).optional(),
    roots: z.array(z.string().min(1).max(4000)).max(50).optional()
  })
  .strict()
  .refine((v) => (v.transport === 'stdio' ? !!v.command : !!v.url), { message: 'a stdio server needs a command, an http/sse server an address' })

/** Stored tool settings (ToolSettings), each part as tools.updateSettings / setApproval / setAgentTools accept it. */
const toolSettingsSchema = z
  .object({
    stepLimit: z.number().int().min(1).max(100),
    approvals: z.record(z.string().min(1).max(500), z.enum(['ask', 'allow', 'never'])),
    agents: z.record(id, z.object({ servers: z.array(id).max(200), builtins: z.array(z.enum(['web_search', 'read_web_page'])).max(10) }).strict()),
    search: z.object({ provider: searchProvider, url: z.url().max(2000).optional(), googleCx: z.string().max(200).optional() }).strict(),
    allowPrivateAddresses: z.boolean()
  })
  .partial()
  .strict()

const issueText = (error: z.ZodError) => {
  const issue = error.issues[0]
  if (!issue) return 'not valid'
  return `${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`
}

const SECRET_KEY = /api[-_]?key|secret|password/i

/** Keys of the settings table an import may carry: the app's settings and the tools' two keys (shared/data/app-settings.ts). */
export const IMPORTABLE_SETTING_KEYS = [...Object.keys(appSettingsSchemas), ...TRANSFERABLE_FEATURE_KEYS] as const
const importable = new Set<string>(IMPORTABLE_SETTING_KEYS)

/**
 * Whether an export carries a settings row: only what an import takes. The rest belongs to this
 * device (its local servers' addresses, which may hold a user and password; its local API's
 * settings with its keys' hashes; sync's and the window's own) and would be refused there anyway.
 */
export const isExportedSetting = (key: string): boolean => importable.has(key)

export function checkImportedSettings(settings: Readonly<JsonObject>, reach: ClientReach): { settings: JsonObject; refused: RefusedSetting[] } {
  const kept: JsonObject = {}
  const refused: RefusedSetting[] = []
  const refuse = (key: string, reason: string) => refused.push({ key, reason })
  for (const [key, value] of Object.entries(settings)) {
    if (SECRET_KEY.test(key)) {
      refuse(key, 'keys and passwords are never imported; they belong in the keychain')
      continue
    }
    if (Object.hasOwn(appSettingsSchemas, key)) {
      const checked = (appSettingsSchemas as Record<string, z.ZodType>)[key]!.safeParse(value)
      if (checked.success) kept[key] = checked.data as JsonValue
      else refuse(key, issueText(checked.error))
      continue
    }
    if (key === 'toolServers') {
      const servers = checkToolServers(value, reach, refuse)
      if (servers) kept[key] = servers
      continue
    }
    if (key === 'tools') {
      const checked = toolSettingsSchema.safeParse(value)
      if (!checked.success) {
        refuse(key, issueText(checked.error))
        continue
      }
      const tools = checked.data
      if (tools.allowPrivateAddresses) {
        // Letting the model's tools read this network's private addresses is a choice made in
        // Settings → Tools, never carried in by a file.
        tools.allowPrivateAddresses = false
        refuse('tools.allowPrivateAddresses', 'an import never lets tools read private or local addresses; turn it on in Settings → Tools if you want it')
      }
      kept[key] = tools as unknown as JsonValue
      continue
    }
    refuse(key, 'not a setting of this version of Switchboard')
  }
  return { settings: kept, refused }
}

function checkToolServers(value: unknown, reach: ClientReach, refuse: (key: string, reason: string) => void): JsonValue | undefined {
  if (!Array.isArray(value)) {
    refuse('toolServers', 'must be a list of tool servers')
    return undefined
  }
  const out: JsonValue[] = []
  const ids = new Set<string>()
  value.forEach((raw, index) => {
    const where = `toolServers.${index}`
    const checked = toolServerConfigSchema.safeParse(raw)
    if (!checked.success) return refuse(where, issueText(checked.error))
    let server = checked.data
    if (server.roots?.length && reach !== 'host') {
      // Roots open host folders to the server: like any host path, only the owner sets them.
      refuse(`${where}.roots`, `${server.name}'s folders on the host were left out: set them in Settings → Tools on the host`)
      const { roots: _roots, ...rest } = server
      server = rest
    }
    if (ids.has(server.id)) return refuse(where, `a second server with the id ${JSON.stringify(server.id)}`)
    ids.add(server.id)
    if (server.transport === 'stdio') {
      // A stdio server is a program the core starts. A remote client may not add one by any
      // door; elsewhere it comes in switched off, so nothing runs until the owner turns it on
      // after seeing its command.
      if (reach === 'remote') return refuse(where, 'with an access password, browser mode does not start programs on the host')
      if (server.enabled) refuse(where, `${server.name} runs a program on this machine (${server.command}); it was added switched off: turn it on in Settings → Tools after checking it`)
      out.push({ ...server, enabled: false } as unknown as JsonValue)
      return
    }
    out.push(server as unknown as JsonValue)
  })
  return out.length ? out : undefined
}

/**
 * After a backup is restored by a browser-mode client: the restored settings pass the same
 * checks as an import's, except what the settings held just before the restore (the owner's
 * own servers and choices stay as they were). Returns the change to apply (`null` removes a key).
 */
export function checkRestoredSettings(
  restored: Readonly<Record<string, JsonValue>>,
  before: Readonly<Record<string, JsonValue>>,
  reach: ClientReach
): { patch: Record<string, JsonValue | null>; refused: RefusedSetting[] } {
  const patch: Record<string, JsonValue | null> = {}
  if (reach === 'host') return { patch, refused: [] }
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)
  const keptServers = new Set((Array.isArray(before['toolServers']) ? before['toolServers'] : []).map((s) => JSON.stringify(s)))
  const candidate: JsonObject = {}
  for (const [key, value] of Object.entries(restored)) {
    if (same(value, before[key])) continue
    if (key === 'toolServers' && Array.isArray(value)) candidate[key] = value.filter((s) => !keptServers.has(JSON.stringify(s)))
    else candidate[key] = value
  }
  const checked = checkImportedSettings(candidate, reach)
  // Private addresses the owner had turned on before the restore stay on.
  const beforeTools = before['tools'] as { allowPrivateAddresses?: boolean } | undefined
  const refused = checked.refused.filter((r) => !(r.key === 'tools.allowPrivateAddresses' && beforeTools?.allowPrivateAddresses === true))
  for (const key of Object.keys(candidate)) {
    let value: JsonValue | undefined = checked.settings[key]
    if (key === 'toolServers') {
      const owners = (Array.isArray(restored[key]) ? restored[key] : []).filter((s) => keptServers.has(JSON.stringify(s)))
      value = [...owners, ...((value as JsonValue[] | undefined) ?? [])]
    }
    if (key === 'tools' && value && beforeTools?.allowPrivateAddresses === true) value = { ...(value as JsonObject), allowPrivateAddresses: (restored[key] as { allowPrivateAddresses?: boolean }).allowPrivateAddresses ?? false }
    if (value === undefined) patch[key] = null
    else if (!same(value, restored[key])) patch[key] = value
  }
  return { patch, refused }
}

/** Applies checkRestoredSettings to the live settings table; returns what was refused. */
export function recheckRestoredSettings(
  settings: { get(): Record<string, JsonValue>; set(patch: Record<string, JsonValue | undefined>): unknown; invalidate(): void },
  before: Readonly<Record<string, JsonValue>>,
  reach: ClientReach
): RefusedSetting[] {
  settings.invalidate()
  const { patch, refused } = checkRestoredSettings(settings.get(), before, reach)
  if (Object.keys(patch).length) settings.set(patch)
  return refused
}
