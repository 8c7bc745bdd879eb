import { z } from 'zod'
import type { AppError } from '../errors/app-error'
import { AGENT_FILE_FORMAT, AGENT_FILE_VERSION, type AgentFileFields } from './agent-file'
import { FILE_INCOMPATIBLE_MESSAGE, importFailedMessage, modelParametersSchema } from './export-file'

// The checking half of the agent file, apart from agent-file.ts so the renderer loads zod only
// when a file is imported (the entry chunk stays small).

/** The limits of `data.agents.create`, so a file that passes here is accepted there. */
export const agentFileFieldsSchema = z
  .object({
    name: z.string().min(1).max(200),
    avatar: z.string().max(200_000).optional(),
    description: z.string().max(10_000).optional(),
    systemPrompt: z.string().max(200_000),
    providerId: z.string().max(100).optional(),
    modelId: z.string().max(300).optional(),
    parameters: modelParametersSchema,
    tags: z.array(z.string().max(100)).max(100)
  })
  .strict()


const failed = (reason: string): { ok: false; error: AppError } => ({ ok: false, error: { errorType: 'ImportFailed', status: 400, message: importFailedMessage(reason) } })

/** Reads an agent file: the fields to create the agent with, or the spec's ImportFailed / FileIncompatible. */
export function parseAgentFile(text: string): { ok: true; agent: AgentFileFields } | { ok: false; error: AppError } {
  let raw: unknown
  try {
    raw = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
  } catch {
    return failed('the file is not valid JSON; it may be truncated or damaged. Nothing was changed.')
  }
  if (typeof raw !== 'object' || raw === null || (raw as { format?: unknown }).format !== AGENT_FILE_FORMAT)
    return failed('this is not a Switchboard agent file. Nothing was changed; choose a file made with "Export agent".')
  const version = (raw as { version?: unknown }).version
  if (typeof version === 'number' && version > AGENT_FILE_VERSION)
    return { ok: false, error: { errorType: 'FileIncompatible', status: 409, message: FILE_INCOMPATIBLE_MESSAGE, detail: { fileVersion: version, supported: AGENT_FILE_VERSION } } }
  const parsed = agentFileFieldsSchema.safeParse((raw as { agent?: unknown }).agent)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    return failed(`agent${issue.path.length ? `.${issue.path.join('.')}` : ''}: ${issue.message}. Nothing was changed.`)
  }
  return { ok: true, agent: parsed.data as AgentFileFields }
}
