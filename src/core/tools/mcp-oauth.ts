import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { randomBytes } from 'node:crypto'
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'

/** The keychain entry of a server's OAuth state: the registered client (with any secret) and the tokens. */
export const oauthSecretName = (serverId: string) => `tool-server-oauth.${serverId}`
/** How long a sign-in waits for the browser to come back. */
const CONSENT_TIMEOUT_MS = 10 * 60_000
const CALLBACK_PATH = '/oauth/callback'

interface StoredOAuth {
  /** The redirect address the client was registered with (the loopback port changes per run). */
  redirectUrl?: string
  client?: OAuthClientInformationMixed
  tokens?: OAuthTokens
}

type Waiter = { resolve(code: string): void; reject(error: Error): void; timer: ReturnType<typeof setTimeout> }

/**
 * The redirect that completes a sign-in: a listener on 127.0.0.1 (a random port, started on
 * first need) at /oauth/callback. RFC 8252 §7.3: a native app's loopback redirect. Each flow
 * is known by its `state`; anything else is answered 400 and changes nothing.
 */
export class OAuthCallbackServer {
  private server?: Server
  private starting?: Promise<string>
  private readonly waiting = new Map<string, Waiter>()

  /** The redirect address (starting the listener if needed). */
  url(): Promise<string> {
    this.starting ??= new Promise<string>((resolve, reject) => {
      const server = createServer((req, res) => {
        const url = new URL(req.url ?? '/', 'http://127.0.0.1')
        const state = url.searchParams.get('state') ?? ''
        const waiter = url.pathname === CALLBACK_PATH ? this.waiting.get(state) : undefined
        const page = (status: number, text: string) => {
          res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
          res.end(`<!doctype html><meta charset="utf-8"><title>Switchboard</title><p style="font:16px system-ui;margin:3em">${text}</p>`)
        }
        if (!waiter) return page(400, 'This sign-in link is not expected (it was used already, or it expired). Start it again from Switchboard.')
        this.waiting.delete(state)
        clearTimeout(waiter.timer)
        const code = url.searchParams.get('code')
        const error = url.searchParams.get('error')
        if (!code) {
          const why = `${error ?? 'no code'}${url.searchParams.get('error_description') ? `: ${url.searchParams.get('error_description')}` : ''}`
          waiter.reject(new Error(`The sign-in was not completed (${why}).`))
          return page(400, 'The sign-in was not completed. You can close this window and try again from Switchboard.')
        }
        waiter.resolve(code)
        page(200, 'Signed in. You can close this window and return to Switchboard.')
      })
      server.on('error', reject)
      server.listen(0, '127.0.0.1', () => {
        this.server = server
        server.unref()
        resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}${CALLBACK_PATH}`)
      })
    })
    return this.starting
  }

  /** Resolves with the authorization code the browser brings back for `state`. */
  waitForCode(state: string, timeoutMs = CONSENT_TIMEOUT_MS): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(state)
        reject(new Error('The sign-in was not completed within 10 minutes.'))
      }, timeoutMs)
      timer.unref?.()
      this.waiting.set(state, { resolve, reject, timer })
    })
  }

  cancel(state: string): void {
    const waiter = this.waiting.get(state)
    if (!waiter) return
    this.waiting.delete(state)
    clearTimeout(waiter.timer)
    waiter.reject(new Error('The sign-in was cancelled.'))
  }

  async close(): Promise<void> {
    for (const state of [...this.waiting.keys()]) this.cancel(state)
    const server = this.server
    this.server = undefined
    this.starting = undefined
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/**
 * The SDK's `OAuthClientProvider` for one remote MCP server: discovery, dynamic client
 * registration, PKCE and refresh are the SDK's; this keeps what they produce in the keychain
 * (one entry per server, never the database) and hands the authorization address to the app,
 * which opens the browser (desktop) or shows it as a link (browser mode, Settings → Tools).
 */
export class McpOAuth implements OAuthClientProvider {
  private cache?: StoredOAuth
  private verifier?: string
  private currentState?: string
  /** The address the user must open to consent; set while a sign-in waits. */
  pendingUrl?: string

  constructor(
    private readonly serverId: string,
    private readonly secrets: ToolSecretStore,
    readonly redirectUrl: string,
    private readonly onAuthorize: (url: string) => void
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Switchboard',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // A desktop app cannot keep a secret from its user: a public client with PKCE.
      token_endpoint_auth_method: 'none'
    }
  }

  private async load(): Promise<StoredOAuth> {
    if (this.cache) return this.cache
    const raw = await this.secrets.readForRuntime(oauthSecretName(this.serverId)).catch(() => undefined)
    try {
      this.cache = raw ? (JSON.parse(raw) as StoredOAuth) : {}
    } catch {
      this.cache = {}
    }
    return this.cache
  }

  private async save(patch: Partial<StoredOAuth>): Promise<void> {
    const next = { ...(await this.load()), ...patch }
    for (const key of Object.keys(patch) as (keyof StoredOAuth)[]) if (patch[key] === undefined) delete next[key]
    this.cache = next
    await this.secrets.set(oauthSecretName(this.serverId), JSON.stringify(next))
  }

  state(): string {
    this.currentState = randomBytes(24).toString('base64url')
    return this.currentState
  }

  get expectedState(): string | undefined {
    return this.currentState
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const stored = await this.load()
    // Registered for another loopback port (an earlier run): register again rather than fail the redirect.
    if (stored.client && stored.redirectUrl !== this.redirectUrl && !stored.tokens?.refresh_token) return undefined
    return stored.client
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    await this.save({ client, redirectUrl: this.redirectUrl })
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.load()).tokens
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.save({ tokens })
  }

  redirectToAuthorization(url: URL): void {
    this.pendingUrl = url.toString()
    this.onAuthorize(this.pendingUrl)
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('No sign-in is in progress for this server.')
    return this.verifier
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier') this.verifier = undefined
    if (scope === 'all') await this.save({ client: undefined, tokens: undefined, redirectUrl: undefined })
    if (scope === 'client') await this.save({ client: undefined, redirectUrl: undefined })
    if (scope === 'tokens') await this.save({ tokens: undefined })
  }
}

/** The keychain, as far as tools need it. */
export interface ToolSecretStore {
  set(name: string, value: string): Promise<unknown>
  delete(name: string): Promise<unknown>
  readForRuntime(name: string): Promise<string | undefined>
}
