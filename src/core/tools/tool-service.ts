import { randomUUID } from 'node:crypto'
import type { JsonValue } from '../../shared/data/json'
import type { ToolResult } from '../../shared/data/message'
import type { AppError } from '../../shared/errors/app-error'
import { AppErrorException } from '../../shared/errors/app-error'
import type { ChatTool, ToolCall } from '../runtime/types'
import type { GroundingCitation } from '../../shared/stream/events'
import {
  BUILTIN_SERVER_ID,
  BUILTIN_TOOLS,
  defaultToolSettings,
  toolKey,
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
import { McpConnection, type ServerSecrets } from './mcp-connection'
import { McpOAuth, OAuthCallbackServer, oauthSecretName, type ToolSecretStore } from './mcp-oauth'
import { parseMcpServersJson } from './import-mcp-servers'
import { pluginError, toPluginError } from './tool-errors'
import { exposedToolName } from './tool-names'
import { convertResult } from './tool-result'
import { readWebPage, readWebPageSchema } from './builtin/read-web-page'
import { webSearch, webSearchSchema } from './builtin/web-search'

/** Where tool settings live: the app settings table (no secrets; keys are refused there). */
export interface ToolSettingsStore {
  get(): Record<string, JsonValue | undefined>
  set(patch: Record<string, JsonValue | undefined>): unknown
}

export type { ToolSecretStore }

export interface ToolServiceOptions {
  /** First restart delay after a crash (tests shorten it). */
  backoffMs?: number
  /** Start-up limit per server (default 30 s). */
  connectTimeoutMs?: number
  fetch?: typeof fetch
  /** Opens a remote server's sign-in page in the user's browser (desktop: the shell; elsewhere the link is shown). */
  openExternal?(url: string): void
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
}

const SERVERS_KEY = 'toolServers'
const SETTINGS_KEY = 'tools'
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

  constructor(
    private readonly settings: ToolSettingsStore,
    private readonly secrets: ToolSecretStore,
    private readonly options: ToolServiceOptions = {}
  ) {}

  // ------------------------------------------------------------ configuration

  configs(): ToolServerConfig[] {
    const saved = this.settings.get()[SERVERS_KEY]
    const list = Array.isArray(saved) ? (saved as unknown as ToolServerConfig[]) : []
    return [...list, ...[...this.ephemeral.values()].map((e) => e.config)]
  }

  private saveConfigs(list: ToolServerConfig[]): void {
    this.settings.set({ [SERVERS_KEY]: list.filter((c) => !this.ephemeral.has(c.id)) as unknown as JsonValue })
  }

  toolSettings(): ToolSettings {
    const saved = this.settings.get()[SETTINGS_KEY] as Partial<ToolSettings> | undefined
    return { ...defaultToolSettings(), ...(saved && typeof saved === 'object' ? saved : {}) }
  }

  updateToolSettings(patch: Partial<ToolSettings>): ToolSettings {
    const next = { ...this.toolSettings(), ...patch }
    this.settings.set({ [SETTINGS_KEY]: next as unknown as JsonValue })
    return next
  }

  setApproval(serverId: string, tool: string, mode: ToolApprovalMode): ToolSettings {
    const approvals = { ...this.toolSettings().approvals }
    if (mode === 'ask') delete approvals[toolKey(serverId, tool)]
    else approvals[toolKey(serverId, tool)] = mode
    return this.updateToolSettings({ approvals })
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
    const config = await this.storeServer(id, input)
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
        }
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
    await Promise.allSettled([...this.connections.values()].map((c) => c.close()))
    await this.oauthCallback.close()
  }

  // ------------------------------------------------------------ tools for a reply

  /** The tools an agent may use, connected lazily and in parallel; unavailable servers are skipped. */
  async toolsFor(choice: AgentToolChoice, options: { search?: boolean } = {}): Promise<OfferedTool[]> {
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
      const raw = await connection.callTool(offered.tool, args, { signal: ctx.signal, ...(ctx.onProgress ? { onProgress: ctx.onProgress } : {}) })
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
