import { checkHostName, checkOrigin, type AllowListEntry } from '../../shared/security/local-api-allow-lists'
import { randomUUID } from 'node:crypto'
import { localApiConfigSchema, type LocalApiConfig } from '../../shared/data/app-settings'
import type { FeatureSettingsStore } from '../store/repositories/settings'
import { AppErrorException } from '../../shared/errors/app-error'
import type { AgentTestResult, CodingAgent, LocalApiKey, LocalApiKeyInput, LocalApiSettingsPatch, LocalApiStatus } from '../../shared/bridge/procedures/local-api'
import { logger } from '../log/logger'
import { isLoopbackHost, newApiKey, type StoredApiKey } from './access'
import type { GatewayBackend } from './backend'
import { startGatewayServer, type GatewayServer } from './gateway-server'
import { testAgent } from './agent-test'

/** The id the agent test's calls carry in the usage log. */
export const AGENT_TEST_KEY_ID = 'agent-test'

/**
 * The typed `localApi` row of the settings table (store.settings): its switch, address, keys
 * (hashes only), aliases, origins; defined with every other key in shared/data/app-settings.ts.
 */
export type GatewaySettingsStore = Pick<FeatureSettingsStore, 'features' | 'save'>

/** No row, or one that did not match its definition (logged by name when read): the API off on loopback. */
const DEFAULT_CONFIG: LocalApiConfig = localApiConfigSchema.parse({})

export interface GatewayServiceDeps {
  settings: GatewaySettingsStore
  backend: GatewayBackend
  /** Whether this caller may change the API (a remote browser-mode client may not: it widens what the host serves). */
  mayChange(): boolean
  /** Overrides from `switchboard api serve --host/--port` for this process; `serve` runs it whatever Settings says. */
  listen?: { host?: string; port?: number; serve?: boolean }
}

/** Each entry in its compared form, each once, in the order given. */
const normalised = (entries: readonly string[], check: (text: string) => AllowListEntry): string[] => [
  ...new Set(entries.map((text) => check(text)).flatMap((entry) => (entry.ok ? [entry.value] : [])))
]

const refused = (message: string, status = 400) => new AppErrorException({ errorType: 'ValidationError', status, message })

/**
 * The local API as a feature: its settings, its keys, and the server running while it is on.
 * Off by default; loopback by default; any other address only once a key exists, and Settings
 * shows a warning for it.
 */
export class GatewayService {
  private server: GatewayServer | undefined
  private error: string | undefined
  private starting: Promise<void> | undefined
  /**
   * The agent test's own key: in memory only, never shown, accepted by this process's server
   * alone, so a test needs no key the user has to make, see or revoke.
   */
  private testKey: { secret: string; stored: StoredApiKey } | undefined

  constructor(private readonly deps: GatewayServiceDeps) {}

  /** Read per request: the table's typed view, parsed once per change (not on every call). */
  config(): LocalApiConfig {
    return this.deps.settings.features().localApi ?? DEFAULT_CONFIG
  }

  private save(config: LocalApiConfig): void {
    this.deps.settings.save({ localApi: config })
  }

  private address(config: LocalApiConfig): { host: string; port: number } {
    return { host: this.deps.listen?.host ?? config.host, port: this.deps.listen?.port ?? config.port }
  }

  /** Starts or stops the server to match the settings (at start-up and after each change). */
  async apply(): Promise<void> {
    const run = async (): Promise<void> => {
      const config = this.config()
      await this.server?.close()
      this.server = undefined
      this.error = undefined
      if (!config.enabled && !this.deps.listen?.serve) return
      const { host, port } = this.address(config)
      const usable = config.keys.some((k) => k.revokedAt === undefined)
      if (!isLoopbackHost(host) && !usable) {
        this.error = `The local API listens on ${host} only once a key exists: create one first.`
        return
      }
      try {
        this.server = await startGatewayServer({
          host,
          port,
          backend: this.deps.backend,
          // Read per request: a revoked key or a new alias applies at once.
          config: () => {
            const now = this.config()
            return { keys: this.testKey ? [...now.keys, this.testKey.stored] : now.keys, aliases: now.aliases, allowedOrigins: now.allowedOrigins, allowedHosts: now.allowedHosts }
          }
        })
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        this.error =
          code === 'EADDRINUSE'
            ? `Port ${port} is in use by another program: choose another port.`
            : code === 'EADDRNOTAVAIL'
              ? `This machine has no address ${host}.`
              : `The local API could not start: ${(error as Error).message}`
        logger.warn('local-api', 'the local API could not start', error)
      }
    }
    this.starting = (this.starting ?? Promise.resolve()).then(run, run)
    await this.starting
  }

  /** Resolves once the last start or stop has settled (the CLI waits for it before printing the address). */
  async settled(): Promise<void> {
    await this.starting?.catch(() => undefined)
  }

  status(): LocalApiStatus {
    const config = this.config()
    const { host, port } = this.address(config)
    return {
      enabled: config.enabled,
      host,
      port,
      ...(this.server ? { url: this.server.url } : {}),
      ...(this.error ? { error: this.error } : {}),
      keys: config.keys.map((k) => this.describe(k)),
      aliases: config.aliases,
      allowedOrigins: config.allowedOrigins,
      allowedHosts: config.allowedHosts,
      canChange: this.deps.mayChange()
    }
  }

  private describe(key: StoredApiKey): LocalApiKey {
    const spent = this.deps.backend.spent(key.id)
    return {
      id: key.id,
      name: key.name,
      prefix: key.prefix,
      createdAt: key.createdAt,
      ...(key.revokedAt !== undefined ? { revokedAt: key.revokedAt } : {}),
      ...(key.allowedModels ? { allowedModels: key.allowedModels } : {}),
      ...(key.rateLimitPerMinute ? { rateLimitPerMinute: key.rateLimitPerMinute } : {}),
      ...(key.spendCapUsd !== undefined ? { spendCapUsd: key.spendCapUsd } : {}),
      spentUsd: spent.usd,
      calls: spent.calls,
      ...(spent.inputTokens ? { cacheHitRate: (spent.cachedInputTokens ?? 0) / spent.inputTokens } : {})
    }
  }

  private guard(): void {
    if (!this.deps.mayChange())
      throw refused('With an access password, browser mode cannot change the local API: it would widen what this machine serves. Change it from the desktop app or a loopback browser session.', 403)
  }

  async update(patch: LocalApiSettingsPatch): Promise<LocalApiStatus> {
    this.guard()
    const config = { ...this.config() }
    for (const [key, value] of Object.entries(patch)) if (value !== undefined) (config as Record<string, unknown>)[key] = value
    // Kept as the gateway compares them (the schema has already refused anything else).
    if (patch.allowedOrigins) config.allowedOrigins = normalised(patch.allowedOrigins, checkOrigin)
    if (patch.allowedHosts) config.allowedHosts = normalised(patch.allowedHosts, checkHostName)
    if (config.enabled && !isLoopbackHost(config.host) && !config.keys.some((k) => k.revokedAt === undefined)) {
      throw refused(`Create a key before the local API listens on ${config.host}: anyone on the network could otherwise reach it.`)
    }
    const before = this.config()
    this.save(config)
    // Keys, aliases and the allow-lists are read per request: only the address or on/off needs
    // a restart, which would cut the streams clients have open (and move a port-0 server).
    const moved = before.enabled !== config.enabled || before.host !== config.host || before.port !== config.port
    if (moved || (config.enabled && !this.server)) await this.apply()
    return this.status()
  }

  async createKey(input: LocalApiKeyInput): Promise<{ key: LocalApiKey; secret: string }> {
    this.guard()
    const config = this.config()
    const made = newApiKey()
    const key: StoredApiKey = {
      id: randomUUID(),
      name: input.name,
      prefix: made.prefix,
      hash: made.hash,
      createdAt: Date.now(),
      ...(input.allowedModels?.length ? { allowedModels: input.allowedModels } : {}),
      ...(input.rateLimitPerMinute ? { rateLimitPerMinute: input.rateLimitPerMinute } : {}),
      ...(input.spendCapUsd !== undefined ? { spendCapUsd: input.spendCapUsd } : {})
    }
    this.save({ ...config, keys: [...config.keys, key] })
    // A server waiting for its first key (a LAN address) can start now.
    if (config.enabled && !this.server) await this.apply()
    return { key: this.describe(key), secret: made.secret }
  }

  async revokeKey(id: string): Promise<LocalApiStatus> {
    this.guard()
    const config = this.config()
    if (!config.keys.some((k) => k.id === id)) throw new AppErrorException({ errorType: 'NotFound', status: 404, message: 'That key no longer exists.' })
    this.save({ ...config, keys: config.keys.map((k) => (k.id === id && k.revokedAt === undefined ? { ...k, revokedAt: Date.now() } : k)) })
    return this.status()
  }

  /**
   * One request shaped like the agent's first, sent over HTTP to this running server, so it
   * goes through every check and translation a real agent's does. It uses the owner's models
   * and makes a key, so only a caller who may change the API may run it.
   */
  async testAgent(agent: CodingAgent, model: string): Promise<AgentTestResult> {
    this.guard()
    await this.settled()
    if (!this.server) return { ok: false, message: this.error ?? 'The local API is not running.', fix: 'Turn the local API on above, then test again.' }
    if (!this.testKey) {
      const made = newApiKey()
      // A rate limit keeps repeated clicks from running up a bill.
      this.testKey = { secret: made.secret, stored: { id: AGENT_TEST_KEY_ID, name: 'Agent test', prefix: made.prefix, hash: made.hash, createdAt: Date.now(), rateLimitPerMinute: 20 } }
    }
    // A wildcard bind is reached through loopback from this machine.
    const base = this.server.url.replace(/^http:\/\/(0\.0\.0\.0|\[::\])(?=:)/, 'http://127.0.0.1')
    return testAgent(base, this.testKey.secret, agent, model)
  }

  async close(): Promise<void> {
    await this.starting?.catch(() => undefined)
    await this.server?.close()
    this.server = undefined
  }
}
