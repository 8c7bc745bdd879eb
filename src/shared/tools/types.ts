import type { ToolResult, ToolResultPart } from '../data/message'

/**
 * Tools: MCP servers and built-in tools the core runs for a model, with the
 * user's approval. Plain data shared by the core, the bridge and the renderer.
 */

export type ToolTransport = 'stdio' | 'http' | 'sse'

/**
 * A configured tool server as stored in the settings table. Secret values (env vars,
 * headers such as a bearer token) are never here: only their names. The values live in the
 * keychain under `tool-server:<id>` (see src/core/tools/tool-server-secrets.ts).
 */
export interface ToolServerConfig {
  id: string
  name: string
  transport: ToolTransport
  /** stdio: the program and its arguments. */
  command?: string
  args?: string[]
  cwd?: string
  /** http / sse: the server's address. */
  url?: string
  /** Names of env vars (stdio) and headers (http/sse) whose values are in the keychain. */
  secretEnv?: string[]
  secretHeaders?: string[]
  enabled: boolean
  /** Per-call timeout; progress notifications reset it. Default 60 s. */
  timeoutMs?: number
  /**
   * Folders the user lets this server work in (MCP roots), absolute host paths. Empty by
   * default: a server asking for its roots gets none.
   */
  roots?: string[]
}

/** What the user types into the server dialog (or an import): secrets in clear, once. */
export type ToolServerInput = Pick<ToolServerConfig, 'name' | 'transport' | 'command' | 'args' | 'cwd' | 'url' | 'timeoutMs'> & {
  env?: Record<string, string>
  headers?: Record<string, string>
  enabled?: boolean
}

export type ToolServerState = 'idle' | 'connecting' | 'ready' | 'error' | 'disabled'

export interface ToolInfo {
  /** The server's id, or `builtin` for the app's own tools. */
  serverId: string
  name: string
  title?: string
  description?: string
  inputSchema: Record<string, unknown>
}

export interface ToolServerStatus {
  id: string
  name: string
  transport: ToolTransport
  enabled: boolean
  state: ToolServerState
  tools: ToolInfo[]
  resources: { uri: string; name: string }[]
  prompts: { name: string; description?: string }[]
  /** Why it is in `error`, and the last lines it wrote to stderr (stdio). */
  error?: string
  stderrTail?: string
  /** Tools left out because their schema was invalid or too large (PluginManifestInvalid). */
  rejectedTools?: { name: string; reason: string }[]
  /** A remote server that wants an OAuth sign-in: the address to open (shown as a link). */
  authorizationUrl?: string
  /** Restarts after crashes so far (back-off grows with it). */
  restarts: number
  /** What is configured (no secret values: only their names), for the edit form. */
  config: ToolServerConfig
}

export type ToolApprovalMode = 'ask' | 'allow' | 'never'

/** The answer to one approval card. `always`/`never` also remember the choice for the tool. */
export type ToolApprovalDecision = 'allow' | 'deny' | 'always' | 'never'

/** Which tools an agent may use: whole servers, and built-in tools by name. */
export interface AgentToolChoice {
  servers: string[]
  builtins: BuiltinToolName[]
}

export type BuiltinToolName = 'web_search' | 'read_web_page'
export const BUILTIN_SERVER_ID = 'builtin'
export const BUILTIN_TOOLS: readonly BuiltinToolName[] = ['web_search', 'read_web_page']

export type SearchProviderId = 'searxng' | 'tavily' | 'brave' | 'exa' | 'jina' | 'google'

export interface ToolSettings {
  /** Model calls per reply at most (the loop stops there). Default 10. */
  stepLimit: number
  /** Per tool (`<serverId>/<tool>`); absent means ask. */
  approvals: Record<string, ToolApprovalMode>
  /** Per agent id. */
  agents: Record<string, AgentToolChoice>
  search: { provider: SearchProviderId; url?: string; googleCx?: string }
  /** read_web_page may fetch private/loopback addresses (off by default). */
  allowPrivateAddresses: boolean
}

export const DEFAULT_STEP_LIMIT = 10
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000

export const defaultToolSettings = (): ToolSettings => ({
  stepLimit: DEFAULT_STEP_LIMIT,
  approvals: {},
  agents: {},
  search: { provider: 'searxng' },
  allowPrivateAddresses: false
})

/** `<serverId>/<tool>`: the key of approvals and of a tool across servers. */
export const toolKey = (serverId: string, tool: string): string => `${serverId}/${tool}`

/** An approval the loop waits for (shown as a card on the reply). */
export interface ToolApprovalRequest {
  messageId: string
  callId: string
  serverId: string
  serverName: string
  tool: string
  /** Pretty-printed JSON (or the raw text when it is not JSON). */
  arguments: string
  /**
   * A request a running tool's server makes (sampling): the tool call it came from. The card
   * shows under that call; `callId` is the request's own id.
   */
  parentCallId?: string
  /** A sampling request: the server asks the model, through the app, with the user's approval. */
  sampling?: SamplingRequestInfo
}

/** The "tool" name under which a server's sampling approval ("always for this server") is kept. */
export const SAMPLING_TOOL = 'sampling/createMessage'

export interface SamplingRequestInfo {
  systemPrompt?: string
  /** The messages the server sends, as text (images named). */
  prompt: string
  /** The model that will answer: the chat's, unless the server's preferences name another one the app has. */
  model: { providerId: string; modelId: string }
  maxTokens: number
}

/** A question a running tool's server asks the user (MCP elicitation, form mode). */
export interface ElicitationRequest {
  messageId: string
  /** The request's own id (answers name it). */
  callId: string
  /** The tool call whose server asks. */
  parentCallId: string
  serverId: string
  serverName: string
  message: string
  /** The requested schema: a flat object of strings, numbers, integers, booleans and enums. */
  requestedSchema: ElicitationSchema
}

export interface ElicitationSchema {
  type: 'object'
  properties: Record<string, ElicitationField>
  required?: string[]
}

export interface ElicitationField {
  type: 'string' | 'number' | 'integer' | 'boolean' | 'array'
  title?: string
  description?: string
  default?: string | number | boolean | string[]
  minimum?: number
  maximum?: number
  minLength?: number
  maxLength?: number
  format?: string
  enum?: string[]
  enumNames?: string[]
  oneOf?: { const: string; title?: string }[]
  minItems?: number
  maxItems?: number
  items?: { type?: 'string'; enum?: string[]; anyOf?: { const: string; title?: string }[] }
}

export type ElicitationValue = string | number | boolean | string[]

export interface ElicitationAnswer {
  action: 'accept' | 'decline' | 'cancel'
  content?: Record<string, ElicitationValue>
}

/** Turns tools off (all, or some servers) for one message, without changing the agent. */
export interface MessageToolChoice {
  /** No tools at all for this message (the search toggle still works). */
  off?: boolean
  /** These servers' tools are left out for this message. */
  skipServers?: string[]
}

/** Events a reply with tools adds to the chat stream. */
export type ToolStreamEvent =
  | { type: 'tool_approval'; data: ToolApprovalRequest }
  | { type: 'tool_running'; data: { messageId: string; callId: string } }
  | { type: 'tool_progress'; data: { messageId: string; callId: string; progress: number; total?: number; message?: string } }
  /** A step of the loop finished: the assistant message with its calls and their results. */
  | { type: 'tool_step'; data: { messageId: string; toolResults: ToolResult[] } }
  /** A running tool's server asks the user a question (a form in the chat). */
  | { type: 'tool_elicitation'; data: ElicitationRequest }

export type { ToolResultPart }
