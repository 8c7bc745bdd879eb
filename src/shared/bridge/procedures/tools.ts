import { z } from 'zod'
import { call } from '../define'
import type { ElicitationRequest, ToolApprovalRequest, ToolServerStatus, ToolSettings } from '../../tools/types'

const id = z.string().min(1).max(200)
const stringMap = z.record(z.string().min(1).max(200), z.string().max(20_000))

/** A server as the user types it; env values and headers are secrets and go to the keychain. */
const serverInput = z
  .object({
    name: z.string().min(1).max(100),
    transport: z.enum(['stdio', 'http', 'sse']),
    command: z.string().min(1).max(4000).optional(),
    args: z.array(z.string().max(4000)).max(100).optional(),
    cwd: z.string().max(4000).optional(),
    url: z.string().url().max(4000).optional(),
    env: stringMap.optional(),
    headers: stringMap.optional(),
    enabled: z.boolean().optional(),
    timeoutMs: z.number().int().min(1000).max(24 * 3600_000).optional()
  })
  .strict()
  .refine((v) => (v.transport === 'stdio' ? !!v.command : !!v.url), { message: 'a stdio server needs a command, an http/sse server an address', path: ['command'] })

const searchProvider = z.enum(['searxng', 'tavily', 'brave', 'exa', 'jina', 'google'])

/**
 * Tools: MCP servers and the built-in tools. Calls run inside the chat reply
 * stream (a task of the hub); these procedures configure them and answer approval cards.
 */
export const toolProcedures = {
  'tools.servers': call<ToolServerStatus[]>()(z.object({}).strict()),
  'tools.addServer': call<ToolServerStatus>()(serverInput),
  'tools.updateServer': call<ToolServerStatus>()(z.object({ id, server: serverInput }).strict()),
  'tools.removeServer': call<boolean>()(z.object({ id }).strict()),
  'tools.setEnabled': call<ToolServerStatus>()(z.object({ id, enabled: z.boolean() }).strict()),
  /** Connects now (Settings → Tools opened, or an agent that uses them); never needed before a reply. */
  'tools.connect': call<ToolServerStatus[]>()(z.object({ ids: z.array(id).max(200) }).strict()),
  'tools.restart': call<ToolServerStatus>()(z.object({ id }).strict()),
  /** `{ "mcpServers": { … } }` pasted or read from a file. */
  'tools.import': call<ToolServerStatus[]>()(z.object({ json: z.string().min(2).max(1_000_000) }).strict()),
  'tools.settings': call<ToolSettings>()(z.object({}).strict()),
  'tools.updateSettings': call<ToolSettings>()(
    z
      .object({
        stepLimit: z.number().int().min(1).max(100).optional(),
        search: z.object({ provider: searchProvider, url: z.string().url().max(2000).optional(), googleCx: z.string().max(200).optional() }).strict().optional(),
        allowPrivateAddresses: z.boolean().optional()
      })
      .strict()
  ),
  /** The web-search provider's API key: into the keychain, never the database (SearXNG needs none). */
  'tools.setSearchKey': call<boolean>()(z.object({ provider: searchProvider.exclude(['searxng']), apiKey: z.string().trim().min(1).max(4000) }).strict()),
  'tools.setApproval': call<ToolSettings>()(z.object({ serverId: id, tool: z.string().min(1).max(200), mode: z.enum(['ask', 'allow', 'never']) }).strict()),
  /** Which servers and built-in tools an agent may use. */
  'tools.setAgentTools': call<ToolSettings>()(
    z.object({ agentId: id, servers: z.array(id).max(200), builtins: z.array(z.enum(['web_search', 'read_web_page'])).max(10) }).strict()
  ),
  /** The answer to an approval card. False when nothing waits for it any more. */
  'tools.answer': call<boolean>()(z.object({ messageId: id, callId: z.string().min(1).max(200), decision: z.enum(['allow', 'deny', 'always', 'never']) }).strict()),
  /** Approval cards still waiting (a reloaded window shows them again). */
  'tools.pending': call<ToolApprovalRequest[]>()(z.object({}).strict()),
  /**
   * The answer to a server's question (elicitation). An accepted answer that does not fit the
   * requested schema is refused (ValidationError) and the question stays open. False when nothing waits.
   */
  'tools.answerElicitation': call<boolean>()(
    z
      .object({
        messageId: id,
        callId: z.string().min(1).max(300),
        action: z.enum(['accept', 'decline', 'cancel']),
        content: z.record(z.string().max(200), z.union([z.string().max(100_000), z.number(), z.boolean(), z.array(z.string().max(10_000)).max(100)])).optional()
      })
      .strict()
  ),
  /** Questions still waiting (a reloaded window shows them again). */
  'tools.pendingElicitations': call<ElicitationRequest[]>()(z.object({}).strict()),
  /** The folders a server may work in (MCP roots): host paths, so the owner's only. */
  'tools.setRoots': call<ToolServerStatus>()(z.object({ id, roots: z.array(z.string().min(1).max(4000)).max(50) }).strict())
} as const
