import { z } from 'zod'
import { call } from '../define'
import { ALLOW_LIST_PROBLEMS, checkHostName, checkOrigin, type AllowListEntry } from '../../security/local-api-allow-lists'

/** A key of the local API as Settings shows it: never the key itself, never its hash. */
export interface LocalApiKey {
  id: string
  name: string
  /** The first characters of the key, to tell keys apart ("sb-7Hq2…"). */
  prefix: string
  createdAt: number
  revokedAt?: number
  /** Model ids (`provider/model`, aliases, `provider/*`, `*`) this key may call; absent: all. */
  allowedModels?: string[]
  /** Requests per minute; absent: no limit. */
  rateLimitPerMinute?: number
  /** The most this key may spend, in USD, over its life; absent: no cap. */
  spendCapUsd?: number
  /** What it has spent so far (USD, from the usage log). */
  spentUsd: number
  /** Calls made with it (from the usage log). */
  calls: number
  /** The share of its input tokens read from a prompt cache (0..1), once it has sent input. */
  cacheHitRate?: number
}

export interface LocalApiStatus {
  enabled: boolean
  /** The address it listens on while running. */
  url?: string
  host: string
  port: number
  /** Why it is not running although enabled (port in use…). */
  error?: string
  keys: LocalApiKey[]
  aliases: Record<string, string>
  allowedOrigins: string[]
  allowedHosts: string[]
  /** Only the desktop and the CLI may run it; browser mode's page shows it read-only. */
  canChange: boolean
}

const host = z.string().trim().min(1).max(255)
/** One allow-list entry, refused with the reason the CLI and the page also give. */
const allowed = (check: (text: string) => AllowListEntry, what: string) =>
  z
    .string()
    .max(400)
    .superRefine((text, ctx) => {
      const entry = check(text)
      if (!entry.ok) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(text)} is not ${what}: ${ALLOW_LIST_PROBLEMS[entry.problem]}` })
    })
const modelPattern = z.string().trim().min(1).max(400)

export const localApiSettingsSchema = z.strictObject({
  enabled: z.boolean().optional(),
  host: host.optional(),
  port: z.number().int().min(1).max(65_535).optional(),
  aliases: z.record(z.string().trim().min(1).max(200), modelPattern).optional(),
  allowedOrigins: z.array(allowed(checkOrigin, 'an origin')).max(50).optional(),
  allowedHosts: z.array(allowed(checkHostName, 'a host name')).max(50).optional()
})
export type LocalApiSettingsPatch = z.infer<typeof localApiSettingsSchema>

export const localApiKeyInputSchema = z.strictObject({
  name: z.string().trim().min(1, 'give the key a name').max(100),
  allowedModels: z.array(modelPattern).max(200).optional(),
  rateLimitPerMinute: z.number().int().min(1).max(100_000).optional(),
  spendCapUsd: z.number().min(0).max(1_000_000).optional()
})
export type LocalApiKeyInput = z.infer<typeof localApiKeyInputSchema>

/** The clients the Local API page sets up and tests, each by its own first request. */
export const CODING_AGENTS = ['claude-code', 'codex', 'openai'] as const
export type CodingAgent = (typeof CODING_AGENTS)[number]

/** What an agent's first request through the running local API came back with. */
export type AgentTestResult =
  | { ok: true; text: string; ms: number; warning?: string }
  | { ok: false; status?: number; message: string; fix: string; warning?: string }

export const localApiProcedures = {
  'localApi.status': call<LocalApiStatus>()(z.object({}).strict()),
  /** Turns the API on or off and changes its address, aliases and allowed origins/hosts. */
  'localApi.update': call<LocalApiStatus>()(localApiSettingsSchema),
  /** A new key: the only time the key itself is shown (`secret`); only its hash is kept. */
  'localApi.createKey': call<{ key: LocalApiKey; secret: string }>()(localApiKeyInputSchema),
  'localApi.revokeKey': call<LocalApiStatus>()(z.object({ id: z.string().min(1).max(100) }).strict()),
  /** Sends the agent's own first request through the running local API with a key made for the test. */
  'localApi.testAgent': call<AgentTestResult>()(z.object({ agent: z.enum(CODING_AGENTS), model: modelPattern }).strict())
}
