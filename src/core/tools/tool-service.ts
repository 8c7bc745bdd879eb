import { randomUUID } from 'node:crypto'
import { basename } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ErrorCode, McpError, type CreateMessageRequest, type CreateMessageResult, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import { validateElicitation } from '../../shared/tools/elicitation'
import type { JsonValue } from '../../shared/data/json'
import type { ToolResult } from '../../shared/data/message'
import type { AppError } from '../../shared/errors/app-error'
import { AppErrorException } from '../../shared/errors/app-error'
import type { ChatContentPart, ChatMessage, ChatTool, ToolCall } from '../runtime/types'
import type { GroundingCitation } from '../../shared/stream/events'
import {
  BUILTIN_SERVER_ID,
  BUILTIN_TOOLS,
  defaultToolSettings,
  SAMPLING_TOOL,
  toolKey,
  type ElicitationAnswer,
  type ElicitationRequest,
  type ElicitationSchema,
  type MessageToolChoice,
  type ToolStreamEvent,
  type AgentToolChoice,
  type BuiltinToolName,
  type ToolApprovalDecision,
  type ToolApprovalMode,
  type ToolApprovalRequest,
  type ToolInfo,
  type ToolServerConfig,
  type ToolServerInput,
  type ToolServerStatus,
  type ToolSettings
} from '../../shared/tools/types'
import { featureSettingsOver, type FeatureSettingsStore } from '../store/repositories/settings'
import { McpConnection, type ServerRequestHandlers, type ServerSecrets } from './mcp-connection'
import { McpOAuth, OAuthCallbackServer, oauthSecretName, type ToolSecretStore } from './mcp-oauth'
import { parseMcpServersJson } from './import-mcp-servers'
import { pluginError, toPluginError } from './tool-errors'
import { exposedToolName } from './tool-names'
import { convertResult } from './tool-result'
import { readWebPage, readWebPageSchema } from './builtin/read-web-page'
import { webSearch, webSearchSchema } from './builtin/web-search'

/**
 * Where tool settings live: the app settings table's typed `toolServers` and `tools`
 * (store.settings; no secrets, keys are refused there), or rows held for one run (a plain
 * object behind get/set, read through the same definitions).
 */
export type ToolSettingsStore = FeatureSettingsStore | { get(): Readonly<Record<string, unknown>>; set(patch: Record<string, JsonValue | undefined>): unknown }

export type { ToolSecretStore }

export interface ToolServiceOptions {
  /** First restart delay after a crash (tests shorten it). */
  backoffMs?: number
  /** Start-up limit per server (default 30 s). */
  connectTimeoutMs?: number
  fetch?: typeof fetch
  /** Opens a remote server's sign-in page in the user's browser (desktop: the shell; elsewhere the link is shown). */
  openExternal?(url: string): void
  /**
   * Answers a server's sampling request: the one model caller (priced and in the usage log).
   * Absent: sampling requests are refused.
   */
  sample?(input: SampleInput): Promise<{ text: string; model: ModelRef; stopReason?: string }>
  /** The enabled models of a provider, for a sampling request's model preferences (hints by name). */
  models?(providerId: string): Promise<ModelRef[]>
}

export interface ModelRef {
  providerId: string
  modelId: string
}

export interface SampleInput {
  model: ModelRef
  messages: ChatMessage[]
  maxTokens: number
  temperature?: number
  stop?: string[]
  conversationId?: string
  messageId?: string
  signal: AbortSignal
}

/** A tool as offered to one model call: the name the model sees → what runs. */
export interface OfferedTool {
  exposedName: string
  serverId: string
  serverName: string
  tool: string
  chatTool: ChatTool
  /** Approved without a card: the user asked for it directly (the chat's search toggle). */
  preApproved?: boolean
}

export interface ToolRunContext {
  messageId: string
  signal: AbortSignal
  /** The CLI's --yes: every call is approved without asking (never-tools stay denied). */
  autoApprove?: boolean
  onProgress?(progress: { progress: number; total?: number; message?: string }): void
  /** Cards a running call's server needs (a sampling approval, a question to the user). Absent: nobody to ask, refused. */
  onEvent?(event: ToolStreamEvent): void
  /** The reply's model: it answers the server's sampling requests. */
  model?: ModelRef
  conversationId?: string
}

const secretName = (serverId: string) => `tool-server.${serverId}`
export const searchKeyName = (provider: string) => `tools.search.${provider}`

const BUILTIN_INFO: Record<BuiltinToolName, { description: string; schema: Record<string, unknown> }> = {
  web_search: { description: 'Search the web. Returns numbered results (title, address, snippet); cite them by number.', schema: webSearchSchema as unknown as Record<string, unknown> },
  read_web_page: { description: 'Read a web page and get its main text as markdown.', schema: readWebPageSchema as unknown as Record<string, unknown> }
}

/**
 * Tool servers and built-in tools: configuration (settings table + keychain), connections
 * (lazy, parallel, restarted with back-off, all closed on quit), approvals, and running calls.
 */
export class ToolService {
  private readonly connections = new Map<string, McpConnection>()
  private readonly approvals = new Map<string, { request: ToolApprovalRequest; resolve(decision: ToolApprovalDecision): void }>()
  private readonly listeners = new Set<(status: ToolServerStatus) => void>()
  /** Ad-hoc servers given for one process (the CLI's --tool-server); never saved. */
  private readonly ephemeral = new Map<string, { config: ToolServerConfig; secrets: ServerSecrets }>()
  /** The loopback redirect of OAuth sign-ins, started on the first one. */
  private readonly oauthCallback = new OAuthCallbackServer()
  /** Calls running per server: a sampling or elicitation request belongs to the latest one. */
  private readonly running = new Map<string, { ctx: ToolRunContext; callId: string }[]>()
  private readonly elicitations = new Map<string, { request: ElicitationRequest; resolve(answer: ElicitationAnswer): void }>()

  private readonly settings: FeatureSettingsStore

  constructor(
    settings: ToolSettingsStore,
    private readonly secrets: ToolSecretStore,
    private readonly options: ToolServiceOptions = {}
  ) {
    this.settings = 'features' in settings ? settings : featureSettingsOver(settings)
  }

  // ------------------------------------------------------------ configuration

  configs(): ToolServerConfig[] {
    // Checked when read (shared/data/app-settings): a malformed server is left out and logged by its place.
    return [...(this.settings.features().toolServers ?? []), ...[...this.ephemeral.values()].map((e) => e.config)]
  }

  private saveConfigs(list: ToolServerConfig[]): void {
    this.settings.save({ toolServers: list.filter((c) => !this.ephemeral.has(c.id)) })
  }

  toolSettings(): ToolSettings {
    return { ...defaultToolSettings(), ...this.settings.features().tools }
  }

  updateToolSettings(patch: Partial<ToolSettings>): ToolSettings {
    const next = { ...this.toolSettings(), ...patch }
    this.settings.save({ tools: next })
    return next
  }

  setApproval(serverId: string, tool: string, mode: ToolApprovalMode): ToolSettings {
    const approvals = { ...this.toolSettings().approvals }
    if (mode === 'ask') delete approvals[toolKey(serverId, tool)]
    else approvals[toolKey(serverId, tool)] = mode
    return this.updateToolSettings({ approvals })
  }

  /** The folders a server may work in (MCP roots); a connected server is told they changed. */
  async setRoots(id: string, roots: readonly string[]): Promise<ToolServerStatus> {
    const clean = [...new Set(roots.map((r) => r.trim()).filter(Boolean))]
    const config = { ...this.config(id), ...(clean.length ? { roots: clean } : {}) }
    if (!clean.length) delete config.roots
    this.saveConfigs(this.configs().map((c) => (c.id === id ? config : c)))
    await this.connection(id, config).rootsChanged(config.roots)
    return this.status(id)
  }

  setAgentTools(agentId: string, choice: AgentToolChoice): ToolSettings {
    return this.updateToolSettings({ agents: { ...this.toolSettings().agents, [agentId]: choice } })
  }

  agentTools(agentId: string): AgentToolChoice {
    return this.toolSettings().agents[agentId] ?? { servers: [], builtins: [] }
  }

  private config(id: string): ToolServerConfig {
    const config = this.configs().find((c) => c.id === id)
    if (!config) throw new AppErrorException({ errorType: 'ValidationError', status: 404, message: `No tool server has the id ${id}.` })
    return config
  }

  /** Secrets (env values, headers) go to the keychain; the settings table keeps only their names. */
  async addServer(input: ToolServerInput): Promise<ToolServerStatus> {
    const id = randomUUID()
    const config = await this.storeServer(id, input)
    this.saveConfigs([...this.configs(), config])
    return this.status(id)
  }

  async updateServer(id: string, input: ToolServerInput): Promise<ToolServerStatus> {
    const before = this.config(id)
    const config = { ...(await this.storeServer(id, input)), ...(before.roots ? { roots: before.roots } : {}) }
    await this.dropConnection(id)
    // Tokens belong to the server they were issued by: another address signs in afresh.
    if (before.url !== config.url) await this.secrets.delete(oauthSecretName(id)).catch(() => undefined)
    this.saveConfigs(this.configs().map((c) => (c.id === id ? config : c)))
    return this.status(id)
  }

  private async storeServer(id: string, input: ToolServerInput): Promise<ToolServerConfig> {
    const env = input.env ?? {}
    const headers = input.headers ?? {}
    if (Object.keys(env).length || Object.keys(headers).length) await this.secrets.set(secretName(id), JSON.stringify({ env, headers }))
    else await this.secrets.delete(secretName(id)).catch(() => undefined)
    return {
      id,
      name: input.name.trim() || 'Tool server',
      transport: input.transport,
      ...(input.command ? { command: input.command } : {}),
      ...(input.args?.length ? { args: input.args } : {}),
      ...(input.cwd ? { cwd: input.cwd } : {}),
      ...(input.url ? { url: input.url } : {}),
      ...(Object.keys(env).length ? { secretEnv: Object.keys(env) } : {}),
      ...(Object.keys(headers).length ? { secretHeaders: Object.keys(headers) } : {}),
      enabled: input.enabled ?? true,
      ...(input.timeoutMs ? { timeoutMs: input.timeoutMs } : {})
    }
  }

  async removeServer(id: string): Promise<boolean> {
    this.config(id)
    await this.dropConnection(id)
    this.saveConfigs(this.configs().filter((c) => c.id !== id))
    await this.secrets.delete(secretName(id)).catch(() => undefined)
    await this.secrets.delete(oauthSecretName(id)).catch(() => undefined)
    return true
  }

  async setEnabled(id: string, enabled: boolean): Promise<ToolServerStatus> {
    const config = { ...this.config(id), enabled }
    await this.dropConnection(id)
    this.saveConfigs(this.configs().map((c) => (c.id === id ? config : c)))
    return this.status(id)
  }

  /** `mcpServers` JSON (pasted or from a file): each server added, its env/headers to the keychain. */
  /** The web-search provider's key, kept in the keychain under `tools.search.<provider>`. */
  async setSearchKey(provider: string, apiKey: string): Promise<boolean> {
    await this.secrets.set(searchKeyName(provider), apiKey)
    return true
  }

  async importServers(json: string): Promise<ToolServerStatus[]> {
    const inputs = parseMcpServersJson(json)
    const out: ToolServerStatus[] = []
    for (const input of inputs) out.push(await this.addServer(input))
    return out
  }

  /** A server for this process only (CLI --tool-server): `http(s)://…` or a command line. */
  addEphemeral(spec: string): ToolServerConfig {
    const id = `cli-${this.ephemeral.size + 1}`
    const isUrl = /^https?:\/\//.test(spec)
    const words = spec.match(/"[^"]*"|'[^']*'|\S+/g)?.map((w) => w.replace(/^["']|["']$/g, '')) ?? []
    const config: ToolServerConfig = isUrl
      ? { id, name: new URL(spec).host, transport: spec.endsWith('/sse') ? 'sse' : 'http', url: spec, enabled: true }
      : { id, name: (words[0] ?? 'server').split('/').pop() ?? 'server', transport: 'stdio', command: words[0] ?? '', args: words.slice(1), enabled: true }
    this.ephemeral.set(id, { config, secrets: { env: {}, headers: {} } })
    return config
  }

  // ------------------------------------------------------------ connections

  onStatus(listener: (status: ToolServerStatus) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private connection(id: string, known?: ToolServerConfig): McpConnection {
    let connection = this.connections.get(id)
    if (!connection) {
      const config = known ?? this.config(id)
      connection = new McpConnection(config, {
        secrets: () => this.serverSecrets(id),
        onChange: (status) => this.listeners.forEach((l) => l(status)),
        ...(this.options.backoffMs !== undefined ? { backoffMs: this.options.backoffMs } : {}),
        ...(this.options.connectTimeoutMs !== undefined ? { connectTimeoutMs: this.options.connectTimeoutMs } : {}),
        oauth: async () => {
          const redirectUrl = await this.oauthCallback.url()
          const provider = new McpOAuth(id, this.secrets, redirectUrl, (url) => this.options.openExternal?.(url))
          return { provider, waitForCode: (state: string) => this.oauthCallback.waitForCode(state) }
        },
        requests: this.serverRequests(id)
      })
      this.connections.set(id, connection)
    }
    return connection
  }

  private async serverSecrets(id: string): Promise<ServerSecrets> {
    const e = this.ephemeral.get(id)
    if (e) return e.secrets
    const raw = await this.secrets.readForRuntime(secretName(id))
    if (!raw) return { env: {}, headers: {} }
    try {
      const parsed = JSON.parse(raw) as Partial<ServerSecrets>
      return { env: parsed.env ?? {}, headers: parsed.headers ?? {} }
    } catch {
      return { env: {}, headers: {} }
    }
  }

  private async dropConnection(id: string): Promise<void> {
    const connection = this.connections.get(id)
    this.connections.delete(id)
    await connection?.close()
  }

  status(id: string): ToolServerStatus {
    return this.connection(id).status
  }

  statuses(): ToolServerStatus[] {
    return this.configs().map((c) => this.status(c.id))
  }

  /** Connects the given servers in parallel; failures stay in their status (never thrown here). */
  async connect(ids: readonly string[]): Promise<ToolServerStatus[]> {
    // The settings are read once here, not once per server (each read parses the settings table).
    const known = new Map(this.configs().map((c) => [c.id, c]))
    const wanted = ids.map((id) => known.get(id)).filter((c): c is ToolServerConfig => c?.enabled === true)
    const connections = wanted.map((c) => this.connection(c.id, c))
    await Promise.allSettled(connections.map((c) => c.ensure()))
    return connections.map((c) => c.status)
  }

  async restart(id: string): Promise<ToolServerStatus> {
    await this.connection(id)
      .restart()
      .catch(() => undefined)
    return this.status(id)
  }

  /** Quit: every server stopped (stdio children killed by the SDK's close). */
  async close(): Promise<void> {
    for (const pending of this.approvals.values()) pending.resolve('deny')
    this.approvals.clear()
    for (const pending of this.elicitations.values()) pending.resolve({ action: 'cancel' })
    this.elicitations.clear()
    await Promise.allSettled([...this.connections.values()].map((c) => c.close()))
    await this.oauthCallback.close()
  }

  // ------------------------------------------------------------ tools for a reply

  /** The tools an agent may use, connected lazily and in parallel; unavailable servers are skipped. */
  async toolsFor(choice: AgentToolChoice, options: { search?: boolean; only?: MessageToolChoice } = {}): Promise<OfferedTool[]> {
    // The composer's per-message choice narrows the agent's tools for one message.
    const skip = new Set(options.only?.skipServers ?? [])
    if (options.only?.off) choice = { servers: [], builtins: [] }
    else if (skip.size) choice = { servers: choice.servers.filter((s) => !skip.has(s)), builtins: choice.builtins.filter(() => !skip.has(BUILTIN_SERVER_ID)) }
    const statuses = await this.connect(choice.servers)
    const offered: OfferedTool[] = []
    const taken = new Set<string>()
    const approvals = this.toolSettings().approvals
    const builtins = new Set(choice.builtins)
    // The search toggle: turning search on is the user's consent to searching, so no card.
    const toggled = options.search === true && approvals[toolKey(BUILTIN_SERVER_ID, 'web_search')] !== 'never'
    if (toggled) builtins.add('web_search')
    for (const name of builtins) {
      if (!BUILTIN_TOOLS.includes(name)) continue
      taken.add(name)
      offered.push({
        exposedName: name,
        serverId: BUILTIN_SERVER_ID,
        serverName: 'Switchboard',
        tool: name,
        chatTool: { type: 'function', function: { name, description: BUILTIN_INFO[name].description, parameters: BUILTIN_INFO[name].schema } },
        ...(toggled && name === 'web_search' ? { preApproved: true } : {})
      })
    }
    for (const status of statuses) {
      if (status.state !== 'ready') continue
      for (const tool of status.tools) {
        // A tool set to "never" is not offered at all: the model cannot waste a step on it.
        if (approvals[toolKey(status.id, tool.name)] === 'never') continue
        const exposedName = exposedToolName(status.name, tool.name, taken)
        taken.add(exposedName)
        offered.push({ exposedName, serverId: status.id, serverName: status.name, tool: tool.name, chatTool: { type: 'function', function: { name: exposedName, ...(tool.description ? { description: tool.description } : {}), parameters: tool.inputSchema } } })
      }
    }
    return offered
  }

  /** The app's web search can run: SearXNG has an address, another provider has its key; not set to "never". */
  async searchAvailable(): Promise<boolean> {
    const settings = this.toolSettings()
    if (settings.approvals[toolKey(BUILTIN_SERVER_ID, 'web_search')] === 'never') return false
    const { provider, url, googleCx } = settings.search
    if (provider === 'searxng') return Boolean(url)
    if (provider === 'google' && !googleCx) return false
    return Boolean(await this.secrets.readForRuntime(searchKeyName(provider)).catch(() => undefined))
  }

  listTools(id: string): ToolInfo[] {
    return this.status(id).tools
  }

  // ------------------------------------------------------------ approvals

  pendingApprovals(): ToolApprovalRequest[] {
    return [...this.approvals.values()].map((a) => a.request)
  }

  /** The user's answer to an approval card. False when nothing waits for it (already answered, stopped). */
  answer(messageId: string, callId: string, decision: ToolApprovalDecision): boolean {
    const key = `${messageId}:${callId}`
    const pending = this.approvals.get(key)
    if (!pending) return false
    this.approvals.delete(key)
    if (decision === 'always' || decision === 'never') this.setApproval(pending.request.serverId, pending.request.tool, decision === 'always' ? 'allow' : 'never')
    pending.resolve(decision)
    return true
  }

  /** Resolves when the user answers, or with `deny` when the reply is stopped. */
  waitForApproval(request: ToolApprovalRequest, signal: AbortSignal): Promise<ToolApprovalDecision> {
    const key = `${request.messageId}:${request.callId}`
    return new Promise((resolve) => {
      const onAbort = () => {
        this.approvals.delete(key)
        resolve('deny')
      }
      if (signal.aborted) return onAbort()
      signal.addEventListener('abort', onAbort, { once: true })
      this.approvals.set(key, {
        request,
        resolve: (d) => {
          signal.removeEventListener('abort', onAbort)
          resolve(d)
        }
      })
    })
  }

  approvalMode(serverId: string, tool: string): ToolApprovalMode {
    return this.toolSettings().approvals[toolKey(serverId, tool)] ?? 'ask'
  }

  // ------------------------------------------------------------ running a call

  /** Runs one call and returns its result; never throws (failures are error results the model reads). */
  async execute(offered: OfferedTool, call: ToolCall, ctx: ToolRunContext): Promise<{ result: ToolResult; citations?: GroundingCitation[] }> {
    const started = Date.now()
    const base = { toolCallId: call.id, serverId: offered.serverId, tool: offered.tool }
    const fail = (error: AppError): { result: ToolResult } => ({
      result: { ...base, content: `Error (${error.errorType}): ${error.message}`, isError: true, outcome: 'error', errorType: error.errorType, durationMs: Date.now() - started }
    })
    let args: Record<string, unknown>
    try {
      const parsed: unknown = call.function.arguments.trim() ? JSON.parse(call.function.arguments) : {}
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('the arguments are not a JSON object')
      args = parsed as Record<string, unknown>
    } catch (error) {
      return fail(pluginError('PluginFailToTransformArguments', `The arguments for ${offered.tool} are not valid JSON: ${(error as Error).message}`))
    }
    try {
      if (offered.serverId === BUILTIN_SERVER_ID) return { ...(await this.runBuiltin(offered.tool as BuiltinToolName, args, ctx, base, started)) }
      const connection = this.connections.get(offered.serverId) ?? this.connection(offered.serverId)
      // While it runs, the server's sampling and elicitation requests belong to this call.
      const entry = { ctx, callId: call.id }
      const list = this.running.get(offered.serverId) ?? []
      this.running.set(offered.serverId, [...list, entry])
      let raw: Awaited<ReturnType<McpConnection['callTool']>>
      try {
        raw = await connection.callTool(offered.tool, args, { signal: ctx.signal, ...(ctx.onProgress ? { onProgress: ctx.onProgress } : {}) })
      } finally {
        const left = (this.running.get(offered.serverId) ?? []).filter((e) => e !== entry)
        if (left.length) this.running.set(offered.serverId, left)
        else this.running.delete(offered.serverId)
      }
      const converted = convertResult(raw, `${offered.serverName} › ${offered.tool}`)
      if (converted.isError) {
        const error = pluginError('PluginServerError', converted.text || `${offered.tool} failed.`)
        return { result: { ...fail(error).result, parts: converted.parts } }
      }
      return { result: { ...base, content: converted.text, parts: converted.parts, outcome: 'ok', durationMs: Date.now() - started } }
    } catch (error) {
      return fail(toPluginError(error, { server: offered.serverName, tool: offered.tool }))
    }
  }

  // ------------------------------------------------------------ what servers ask of the client

  private serverRequests(serverId: string): ServerRequestHandlers {
    return {
      sampling: (params, signal) => this.sample(serverId, params, signal),
      elicitation: (params, signal) => this.elicit(serverId, params, signal),
      roots: () => (this.configs().find((c) => c.id === serverId)?.roots ?? []).map((path) => ({ uri: pathToFileURL(path).href, name: basename(path) || path }))
    }
  }

  private serverName(serverId: string): string {
    return this.connections.get(serverId)?.status.name ?? this.configs().find((c) => c.id === serverId)?.name ?? serverId
  }

  /** The call a server's request belongs to: its latest running call. */
  private requester(serverId: string, what: string): { ctx: ToolRunContext; callId: string } {
    const run = this.running.get(serverId)?.at(-1)
    if (!run) throw new McpError(ErrorCode.InvalidRequest, `Switchboard answers ${what} only while one of this server's tools runs in a chat.`)
    return run
  }

  /**
   * sampling/createMessage: the user approves (a card naming the server, the prompt, the model
   * and the token limit; "always" is remembered per server), then the one model caller answers.
   * A refusal is an MCP error the server sees.
   */
  private async sample(serverId: string, params: CreateMessageRequest['params'], signal: AbortSignal): Promise<CreateMessageResult> {
    const { ctx, callId } = this.requester(serverId, 'sampling requests')
    const serverName = this.serverName(serverId)
    if (!ctx.model || !this.options.sample) throw new McpError(ErrorCode.InvalidRequest, 'Switchboard has no model to answer this sampling request.')
    const hints = params.modelPreferences?.hints
    const models = hints?.length && this.options.models ? await this.options.models(ctx.model.providerId).catch(() => []) : []
    const model = preferredModel(hints, ctx.model, models)
    const messages = samplingMessages(params)
    const prompt = messages
      .filter((m) => m.role !== 'system')
      .map((m) => `${m.role}: ${typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => (p.type === 'text' ? p.text : '[image]')).join('\n')}`)
      .join('\n\n')
    const mode = this.approvalMode(serverId, SAMPLING_TOOL)
    const declined = (why: string) => new McpError(-1, why)
    if (mode === 'never') throw declined(`The user does not allow ${serverName} to ask the model (sampling).`)
    if (mode === 'ask' && !ctx.autoApprove) {
      if (!ctx.onEvent) throw declined('There is no one to approve this sampling request.')
      const request: ToolApprovalRequest = {
        messageId: ctx.messageId,
        callId: `${callId}:sampling:${randomUUID().slice(0, 8)}`,
        parentCallId: callId,
        serverId,
        serverName,
        tool: SAMPLING_TOOL,
        arguments: prompt,
        sampling: { ...(params.systemPrompt ? { systemPrompt: params.systemPrompt } : {}), prompt, model, maxTokens: params.maxTokens }
      }
      ctx.onEvent({ type: 'tool_approval', data: request })
      const decision = await this.waitForApproval(request, AbortSignal.any([ctx.signal, signal]))
      if (decision === 'deny' || decision === 'never') throw declined('User rejected sampling request')
    }
    const answer = await this.options.sample({
      model,
      messages,
      maxTokens: params.maxTokens,
      ...(params.temperature !== undefined ? { temperature: params.temperature } : {}),
      ...(params.stopSequences?.length ? { stop: params.stopSequences } : {}),
      ...(ctx.conversationId ? { conversationId: ctx.conversationId } : {}),
      messageId: ctx.messageId,
      signal: AbortSignal.any([ctx.signal, signal])
    })
    const stopReason = answer.stopReason === 'length' ? 'maxTokens' : answer.stopReason === 'stop_sequence' ? 'stopSequence' : 'endTurn'
    return { role: 'assistant', content: { type: 'text', text: answer.text }, model: answer.model.modelId, stopReason }
  }

  /** elicitation/create: a form in the chat (or the terminal); the answer is checked against the schema. */
  private async elicit(serverId: string, params: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult> {
    if (params.mode === 'url' || !('requestedSchema' in params)) throw new McpError(ErrorCode.InvalidParams, 'Switchboard answers form questions only.')
    const { ctx, callId } = this.requester(serverId, 'questions')
    if (!ctx.onEvent) return { action: 'decline' }
    const request: ElicitationRequest = {
      messageId: ctx.messageId,
      callId: `${callId}:elicitation:${randomUUID().slice(0, 8)}`,
      parentCallId: callId,
      serverId,
      serverName: this.serverName(serverId),
      message: params.message,
      requestedSchema: params.requestedSchema as unknown as ElicitationSchema
    }
    const key = `${request.messageId}:${request.callId}`
    const answer = await new Promise<ElicitationAnswer>((resolve) => {
      const both = AbortSignal.any([ctx.signal, signal])
      const onAbort = () => {
        this.elicitations.delete(key)
        resolve({ action: 'cancel' })
      }
      if (both.aborted) return onAbort()
      both.addEventListener('abort', onAbort, { once: true })
      this.elicitations.set(key, {
        request,
        resolve: (a) => {
          both.removeEventListener('abort', onAbort)
          resolve(a)
        }
      })
      ctx.onEvent!({ type: 'tool_elicitation', data: request })
    })
    return answer.action === 'accept' ? { action: 'accept', content: answer.content ?? {} } : { action: answer.action }
  }

  pendingElicitations(): ElicitationRequest[] {
    return [...this.elicitations.values()].map((e) => e.request)
  }

  /**
   * The user's answer to a question. An accepted answer that does not fit the schema is
   * refused (ValidationError naming the fields) and the question stays open.
   */
  answerElicitation(messageId: string, callId: string, answer: ElicitationAnswer): boolean {
    const key = `${messageId}:${callId}`
    const pending = this.elicitations.get(key)
    if (!pending) return false
    if (answer.action === 'accept') {
      const problems = validateElicitation(pending.request.requestedSchema, answer.content ?? {})
      if (Object.keys(problems).length) throw new AppErrorException({ errorType: 'ValidationError', status: 400, message: Object.values(problems).join(' ') })
    }
    this.elicitations.delete(key)
    pending.resolve(answer.action === 'accept' ? { action: 'accept', content: answer.content ?? {} } : { action: answer.action })
    return true
  }

  private async runBuiltin(
    name: BuiltinToolName,
    args: Record<string, unknown>,
    ctx: ToolRunContext,
    base: Pick<ToolResult, 'toolCallId' | 'serverId' | 'tool'>,
    started: number
  ): Promise<{ result: ToolResult; citations?: GroundingCitation[] }> {
    const settings = this.toolSettings()
    const fetchOpt = this.options.fetch ? { fetch: this.options.fetch } : {}
    if (name === 'web_search') {
      const apiKey = settings.search.provider === 'searxng' ? undefined : await this.secrets.readForRuntime(searchKeyName(settings.search.provider))
      const found = await webSearch(args, { ...settings.search, ...(apiKey ? { apiKey } : {}) }, { signal: ctx.signal, ...fetchOpt })
      return { result: { ...base, content: found.text, parts: [{ type: 'text', text: found.text }], outcome: 'ok', durationMs: Date.now() - started }, citations: found.citations }
    }
    const page = await readWebPage(args, { allowPrivate: settings.allowPrivateAddresses, signal: ctx.signal, ...fetchOpt })
    const text = `# ${page.title}\n${page.url}\n\n${page.markdown}`
    return { result: { ...base, content: text, parts: [{ type: 'text', text }], outcome: 'ok', durationMs: Date.now() - started }, citations: [{ title: page.title, url: page.url }] }
  }
}

/** A sampling request's messages as the runtime takes them (text and images; other content named). */
function samplingMessages(params: CreateMessageRequest['params']): ChatMessage[] {
  const out: ChatMessage[] = params.systemPrompt ? [{ role: 'system', content: params.systemPrompt }] : []
  for (const m of params.messages) {
    const items = Array.isArray(m.content) ? m.content : [m.content]
    const parts: ChatContentPart[] = items.map((c): ChatContentPart => {
      if (c.type === 'text') return { type: 'text', text: c.text }
      if (c.type === 'image') return { type: 'image_url', image_url: { url: `data:${c.mimeType};base64,${c.data}` } }
      return { type: 'text', text: `[${c.type}]` }
    })
    const only = parts.length === 1 ? parts[0] : undefined
    out.push({ role: m.role, content: only?.type === 'text' ? only.text : parts })
  }
  return out
}

/**
 * The model a sampling request runs on: the first of the server's hints that names a model the
 * app has enabled on the chat's provider (by substring, as the MCP spec suggests: "sonnet" matches
 * a Sonnet); else the chat's model.
 */
export function preferredModel(hints: readonly { name?: string }[] | undefined, chat: ModelRef, models: readonly ModelRef[]): ModelRef {
  for (const hint of hints ?? []) {
    const name = hint.name?.trim().toLowerCase()
    if (!name) continue
    if (chat.modelId.toLowerCase().includes(name)) return chat
    const matches = models.filter((m) => m.modelId.toLowerCase().includes(name))
    const found = matches.find((m) => m.providerId === chat.providerId) ?? matches[0]
    if (found) return found
  }
  return chat
}
