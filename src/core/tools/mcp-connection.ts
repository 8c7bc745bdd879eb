import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { commandNotFound } from './command-not-found'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import type { McpOAuth } from './mcp-oauth'
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
  type Root
} from '@modelcontextprotocol/sdk/types.js'
import { DEFAULT_TOOL_TIMEOUT_MS, type ToolInfo, type ToolServerConfig, type ToolServerStatus } from '../../shared/tools/types'
import { pluginException, toPluginError } from './tool-errors'
import { AppErrorException } from '../../shared/errors/app-error'
import { APP_VERSION } from '../version'

/** A tool whose JSON schema is larger than this is left out (PluginManifestInvalid): it would eat the model's context. */
export const MAX_SCHEMA_BYTES = 64 * 1024
/** At most this many tools per server are offered to a model. */
export const MAX_TOOLS_PER_SERVER = 128
const STDERR_TAIL_CHARS = 4000
const MAX_BACKOFF_MS = 60_000
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000
/** A per-call timeout shorter than this still gives a program this long to start and answer initialize. */
export const MIN_CONNECT_TIMEOUT_MS = 5_000

export interface ServerSecrets {
  env: Record<string, string>
  headers: Record<string, string>
}

export interface McpConnectionOptions {
  /** Reads the server's secret env vars and headers from the keychain, at connect time only. */
  secrets(): Promise<ServerSecrets>
  /** Called on every status change (the Settings page and the manager listen). */
  onChange?(status: ToolServerStatus): void
  /** First back-off after a crash (ms); doubles per restart up to a minute. Tests shorten it. */
  backoffMs?: number
  /** How long start-up (spawn + initialize + lists) may take. Default 30 s: npx may download first. */
  connectTimeoutMs?: number
  /**
   * OAuth for a remote server: the SDK's client flow with the keychain behind it, and a
   * wait for the browser's redirect. Absent (stdio, or a configured Authorization header): none.
   */
  oauth?(): Promise<{ provider: McpOAuth; waitForCode(state: string): Promise<string> } | undefined>
  /**
   * What the server may ask of the client: a model answer (sampling), a question to the user
   * (elicitation) and the folders it may work in (roots). Present: those capabilities are
   * advertised; the handlers decide (with the user) and throw an McpError to refuse.
   */
  requests?: ServerRequestHandlers
}

export interface ServerRequestHandlers {
  sampling(params: CreateMessageRequest['params'], signal: AbortSignal): Promise<CreateMessageResult>
  elicitation(params: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult>
  roots(): Root[]
}

export interface CallOptions {
  signal?: AbortSignal
  onProgress?(progress: { progress: number; total?: number; message?: string }): void
}

/**
 * One MCP server: connects on first use, lists its tools, calls them with a per-call
 * timeout that progress notifications reset, and restarts with back-off after a crash.
 * The official SDK does the protocol (including the cancellation notification on abort).
 */
export class McpConnection {
  private client?: Client
  private connecting?: Promise<void>
  private closing = false
  private restartTimer?: ReturnType<typeof setTimeout>
  private stderrTail = ''
  private lastTransportError?: string
  /** The SDK refused a message over its 10 MB limit; sticky until the next connect, since the
   * errors of the shutdown that follows (EPIPE…) would otherwise hide why it closed. */
  private refusedOversize = false
  private current: ToolServerStatus

  constructor(
    readonly config: ToolServerConfig,
    private readonly options: McpConnectionOptions
  ) {
    this.current = {
      id: config.id,
      name: config.name,
      transport: config.transport,
      enabled: config.enabled,
      state: config.enabled ? 'idle' : 'disabled',
      tools: [],
      resources: [],
      prompts: [],
      restarts: 0,
      config
    }
  }

  get status(): ToolServerStatus {
    return this.current
  }

  get timeoutMs(): number {
    return this.config.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS
  }

  /**
   * The server's own timeout when it has one (the user set it for this server), with a few
   * seconds at least for its program to start; else the service's, else 30 s (npx may download).
   */
  private get connectTimeoutMs(): number {
    if (this.config.timeoutMs !== undefined) return Math.max(MIN_CONNECT_TIMEOUT_MS, this.config.timeoutMs)
    return this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS
  }

  private set(patch: Partial<ToolServerStatus>): void {
    this.current = { ...this.current, ...patch }
    this.options.onChange?.(this.current)
  }

  /** Connects if not connected (concurrent callers share one attempt). Throws a plugin error on failure. */
  async ensure(): Promise<void> {
    if (!this.config.enabled) throw pluginException('PluginSettingsInvalid', `${this.config.name} is turned off in Settings → Tools.`)
    if (this.client && this.current.state === 'ready') return
    this.connecting ??= this.connect().finally(() => (this.connecting = undefined))
    return this.connecting
  }

  private async connect(): Promise<void> {
    this.closing = false
    this.lastTransportError = undefined
    this.refusedOversize = false
    this.set({ state: 'connecting', error: undefined, authorizationUrl: undefined })
    const c = this.config
    let transport: Transport | undefined
    let oauth: Awaited<ReturnType<NonNullable<McpConnectionOptions['oauth']>>>
    try {
      const secrets = await this.options.secrets()
      const hasAuthHeader = Object.keys(secrets.headers).some((h) => h.toLowerCase() === 'authorization')
      oauth = c.transport !== 'stdio' && !hasAuthHeader ? await this.options.oauth?.() : undefined
      transport = this.transport(secrets, oauth?.provider)
      const requests = this.options.requests
      const client = new Client(
        { name: 'switchboard', version: APP_VERSION },
        { capabilities: requests ? { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } } : {} }
      )
      if (requests) {
        client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => requests.sampling(request.params, extra.signal))
        client.setRequestHandler(ElicitRequestSchema, (request, extra) => requests.elicitation(request.params, extra.signal))
        client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: requests.roots() }))
      }
      // Servers that add tools once they know the client's capabilities (server-everything's
      // sampling and elicitation tools) say so: the list is read again.
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        if (this.client === client) void this.refreshLists(client).catch(() => undefined)
      })
      client.onclose = () => this.closed(client)
      client.onerror = (error) => {
        // Garbage on stdout and similar: the SDK reports each bad line here and keeps going;
        // pending calls then end by their timeout. Kept to explain a close that follows.
        this.lastTransportError = error instanceof Error ? error.message : String(error)
        if (/exceeded maximum size/i.test(this.lastTransportError)) this.refusedOversize = true
      }
      await client.connect(transport, { timeout: this.connectTimeoutMs })
      this.client = client
      await this.refreshLists(client)
      this.set({ state: 'ready' })
    } catch (error) {
      await transport?.close().catch(() => undefined)
      this.client = undefined
      const state = oauth?.provider.expectedState
      if (oauth && error instanceof UnauthorizedError && oauth.provider.pendingUrl && state && transport) {
        // The server wants a sign-in: the browser was opened (or the link is shown); when it comes
        // back to the loopback redirect, the code is exchanged (PKCE) and the server connects.
        const url = oauth.provider.pendingUrl
        const message = `${c.name} needs you to sign in: finish in the browser window that opened, or open the sign-in link in Settings → Tools.`
        this.set({ state: 'error', error: message, tools: [], authorizationUrl: url })
        void this.completeSignIn(oauth, state, transport)
        throw pluginException('PluginSettingsInvalid', message)
      }
      const mapped = (c.transport === 'stdio' ? commandNotFound(error, c.name, c.command, getDefaultEnvironment()['PATH']) : undefined) ?? toPluginError(error, { server: this.config.name, timeoutMs: this.connectTimeoutMs })
      this.set({ state: 'error', error: mapped.message, tools: [], stderrTail: this.stderrTail || undefined })
      throw new AppErrorException(mapped)
    }
  }

  /** Waits for the browser's redirect, exchanges the code (the SDK checks PKCE) and connects again. */
  private async completeSignIn(oauth: NonNullable<Awaited<ReturnType<NonNullable<McpConnectionOptions['oauth']>>>>, state: string, transport: Transport): Promise<void> {
    try {
      const code = await oauth.waitForCode(state)
      await (transport as StreamableHTTPClientTransport | SSEClientTransport).finishAuth(code)
    } catch (error) {
      if (!this.closing) this.set({ state: 'error', authorizationUrl: undefined, error: `${this.config.name}: ${error instanceof Error ? error.message : String(error)}` })
      return
    } finally {
      oauth.provider.pendingUrl = undefined
    }
    // Signed in: connect with the new tokens (a failure shows in the status like any other).
    if (!this.closing) await this.ensure().catch(() => undefined)
  }

  private transport(secrets: ServerSecrets, authProvider?: McpOAuth): Transport {
    const c = this.config
    if (c.transport === 'stdio') {
      if (!c.command) throw pluginException('PluginSettingsInvalid', `${c.name} has no command to start.`)
      const transport = new StdioClientTransport({
        command: c.command,
        args: c.args ?? [],
        env: { ...getDefaultEnvironment(), ...secrets.env },
        ...(c.cwd ? { cwd: c.cwd } : {}),
        stderr: 'pipe'
      })
      this.stderrTail = ''
      transport.stderr?.on('data', (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS)
        // What a failed server writes after the failure is the likeliest explanation: show it.
        if (this.current.state === 'error') this.set({ stderrTail: this.stderrTail })
      })
      return transport
    }
    if (!c.url) throw pluginException('PluginSettingsInvalid', `${c.name} has no address.`)
    let url: URL
    try {
      url = new URL(c.url)
    } catch {
      throw pluginException('PluginSettingsInvalid', `${c.name}: ${JSON.stringify(c.url)} is not a valid address.`)
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw pluginException('PluginSettingsInvalid', `${c.name}: only http and https addresses are allowed.`)
    const requestInit = { headers: secrets.headers }
    const auth = authProvider ? { authProvider } : {}
    return c.transport === 'sse'
      ? new SSEClientTransport(url, { requestInit, ...auth, eventSourceInit: { fetch: (u, init) => fetch(u, { ...init, headers: { ...secrets.headers, ...(init?.headers as Record<string, string>) } }) } })
      : new StreamableHTTPClientTransport(url, { requestInit, ...auth })
  }

  private async refreshLists(client: Client): Promise<void> {
    const caps = client.getServerCapabilities() ?? {}
    const tools: ToolInfo[] = []
    const rejected: { name: string; reason: string }[] = []
    if (caps.tools) {
      const listed = await client.listTools(undefined, { timeout: this.connectTimeoutMs })
      for (const tool of listed.tools) {
        const size = JSON.stringify(tool.inputSchema ?? {}).length
        if (size > MAX_SCHEMA_BYTES) rejected.push({ name: tool.name, reason: `its schema is ${Math.round(size / 1024)} KB (limit ${MAX_SCHEMA_BYTES / 1024} KB)` })
        else if (!/^[\w.-]{1,128}$/.test(tool.name)) rejected.push({ name: tool.name.slice(0, 80), reason: 'its name has characters models cannot call' })
        else if (tools.length >= MAX_TOOLS_PER_SERVER) rejected.push({ name: tool.name, reason: `more than ${MAX_TOOLS_PER_SERVER} tools` })
        else
          tools.push({
            serverId: this.config.id,
            name: tool.name,
            ...(tool.title ? { title: tool.title } : {}),
            ...(tool.description ? { description: tool.description.slice(0, 4000) } : {}),
            inputSchema: tool.inputSchema as Record<string, unknown>
          })
      }
    }
    const resources = caps.resources ? await client.listResources(undefined, { timeout: this.timeoutMs }).then((r) => r.resources.slice(0, 500).map((x) => ({ uri: x.uri, name: x.name })), () => []) : []
    const prompts = caps.prompts ? await client.listPrompts(undefined, { timeout: this.timeoutMs }).then((r) => r.prompts.slice(0, 500).map((x) => ({ name: x.name, ...(x.description ? { description: x.description } : {}) })), () => []) : []
    this.set({ tools, resources, prompts, ...(rejected.length ? { rejectedTools: rejected } : { rejectedTools: undefined }) })
  }

  /** Calls a tool. Aborting `signal` sends MCP's cancellation notification (the SDK does). */
  async callTool(name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<CallToolResult> {
    // Connected already (the usual case in a tool loop): no extra await on the way to the SDK.
    if (!this.client || this.current.state !== 'ready') await this.ensure()
    const client = this.client
    if (!client) throw pluginException('PluginGatewayError', `${this.config.name} is not connected.`)
    // A signal of its own per call: the SDK never removes its abort listener, and a reply's
    // signal would otherwise collect one per call (and Node scans them on every add).
    const own = new AbortController()
    const forward = () => own.abort(options.signal?.reason)
    if (options.signal?.aborted) own.abort(options.signal.reason)
    else options.signal?.addEventListener('abort', forward, { once: true })
    try {
      const result = await client.callTool({ name, arguments: args }, undefined, {
        signal: own.signal,
        timeout: this.timeoutMs,
        // A tool that reports progress is alive: users of other clients lose long tools to a fixed limit.
        resetTimeoutOnProgress: true,
        onprogress: (p) => options.onProgress?.({ progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message ? { message: p.message } : {}) })
      })
      return result as CallToolResult
    } catch (error) {
      // The SDK reports a cancellation as a timeout-coded error; say what really happened.
      if (options.signal?.aborted) throw pluginException('PluginGatewayError', `${this.config.name} › ${name} was cancelled (stopped by the user).`)
      // The SDK's stdio reader drops the connection on a message over 10 MB.
      if (this.refusedOversize)
        throw pluginException('PluginServerError', `${this.config.name} › ${name} returned more than 10 MB; the result was refused and the server restarted.`)
      throw new AppErrorException(toPluginError(error, { server: this.config.name, tool: name, timeoutMs: this.timeoutMs }))
    } finally {
      options.signal?.removeEventListener('abort', forward)
    }
  }

  /** The folders the server may use changed: a connected server is told (it asks for the list again). */
  async rootsChanged(roots: string[] | undefined): Promise<void> {
    const { roots: _old, ...rest } = this.current.config
    this.set({ config: { ...rest, ...(roots?.length ? { roots } : {}) } })
    if (this.client && this.current.state === 'ready') await this.client.sendRootsListChanged().catch(() => undefined)
  }

  /** The transport closed: deliberate (quit, restart) or a crash, which schedules a restart with back-off. */
  private closed(client: Client): void {
    if (this.client !== client) return
    this.client = undefined
    if (this.closing) return
    const restarts = this.current.restarts + 1
    const delay = Math.min((this.options.backoffMs ?? 1000) * 2 ** (restarts - 1), MAX_BACKOFF_MS)
    this.set({ state: 'error', tools: [], restarts, error: `${this.config.name} stopped; restarting in ${Math.round(delay / 1000)} s.`, stderrTail: this.stderrTail || undefined })
    clearTimeout(this.restartTimer)
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined
      if (!this.closing) this.ensure().catch(() => undefined)
    }, delay)
    this.restartTimer.unref?.()
  }

  /** Stops and starts again now (the Restart button). */
  async restart(): Promise<void> {
    await this.close()
    this.set({ restarts: 0 })
    await this.ensure()
  }

  async close(): Promise<void> {
    this.closing = true
    clearTimeout(this.restartTimer)
    this.restartTimer = undefined
    // A connect in flight finishes first, so its client is closed too and not left running.
    await this.connecting?.catch(() => undefined)
    const client = this.client
    this.client = undefined
    await client?.close().catch(() => undefined)
    if (this.current.state !== 'disabled') this.set({ state: this.config.enabled ? 'idle' : 'disabled', tools: this.current.tools })
  }
}
