import {
  DEFAULT_LOCAL_ENDPOINTS,
  LOCAL_SERVER_KINDS,
  LOCAL_SERVER_LABELS,
  type LocalServerKind,
  type LocalServerStatus
} from '../../shared/local/local-servers'
import { AppErrorException } from '../../shared/errors/app-error'
import { maskUrl } from '../runtime/providers/ollama/ollama-client'
import type { LocalSettings } from './local-settings'

export interface DetectionOptions {
  fetch?: typeof fetch
  /** Per probe (ms). Local servers answer in milliseconds; a slow one is as good as absent. */
  timeoutMs?: number
}

interface ProbeResult {
  version?: string
  modelCount?: number
}

type Getter = (path: string) => Promise<{ status: number; body: unknown }>

/** What each server answers, by kind. Each returns undefined when the answer is not that server's. */
const PROBES: Record<LocalServerKind, (get: Getter) => Promise<ProbeResult | undefined>> = {
  async ollama(get) {
    const version = await get('/api/version')
    const v = (version.body as { version?: unknown } | undefined)?.version
    if (version.status !== 200 || typeof v !== 'string') return undefined
    // The server answered its version: a failing list only leaves the model count unknown.
    const tags = await get('/api/tags').catch(() => undefined)
    const models = (tags?.body as { models?: unknown[] } | undefined)?.models
    return { version: v, modelCount: Array.isArray(models) ? models.length : undefined }
  },
  async lmstudio(get) {
    // LM Studio reports no version; its OpenAI-style list is the sign of life (it answers
    // unknown paths with 200 and an error body, so the list shape is checked).
    const list = await get('/v1/models')
    const data = (list.body as { data?: unknown[] } | undefined)?.data
    if (list.status !== 200 || !Array.isArray(data)) return undefined
    return { modelCount: data.length }
  },
  async vllm(get) {
    const version = await get('/version')
    const v = (version.body as { version?: unknown } | undefined)?.version
    if (version.status !== 200 || typeof v !== 'string') return undefined
    // As for Ollama: the version is the sign of life, the list only adds the count.
    const list = await get('/v1/models').catch(() => undefined)
    const data = (list?.body as { data?: unknown[] } | undefined)?.data
    return { version: v, modelCount: Array.isArray(data) ? data.length : undefined }
  },
  async xinference(get) {
    const version = await get('/v1/cluster/version')
    const v = (version.body as { version?: unknown } | undefined)?.version
    if (version.status !== 200 || typeof v !== 'string') return undefined
    // As for Ollama: the version is the sign of life, the list only adds the count.
    const list = await get('/v1/models').catch(() => undefined)
    const data = (list?.body as { data?: unknown[] } | undefined)?.data
    return { version: v, modelCount: Array.isArray(data) ? data.length : undefined }
  }
}

/** A base URL as the user may paste it (`…/v1`, `…/api`, no scheme) → the server root. */
export function normaliseServerUrl(value: string): string {
  let candidate = value.trim()
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(candidate)) candidate = `http://${candidate}`
  let url: URL
  try {
    url = new URL(candidate)
  } catch {
    throw new AppErrorException({ errorType: 'ValidationError', status: 400, message: `Not a valid URL: ${JSON.stringify(maskUrl(value))}` })
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AppErrorException({ errorType: 'ValidationError', status: 400, message: 'A local server URL must start with http:// or https://' })
  }
  const path = url.pathname.replace(/\/+$/, '').replace(/\/(v1|api)$/, '')
  return `${url.protocol}//${url.username ? `${url.username}${url.password ? `:${url.password}` : ''}@` : ''}${url.host}${path}`
}

/**
 * Finds the local model servers (Ollama, LM Studio, vLLM, Xinference) at their default
 * ports or the base URL the user set, and reads each one's version.
 */
export class DetectionService {
  private readonly fetchImpl: typeof fetch
  private readonly timeoutMs: number

  constructor(private readonly settings: LocalSettings, options: DetectionOptions = {}) {
    this.fetchImpl = options.fetch ?? fetch
    this.timeoutMs = options.timeoutMs ?? 1_500
  }

  baseUrl(kind: LocalServerKind): string {
    return this.settings.get(kind) ?? DEFAULT_LOCAL_ENDPOINTS[kind]
  }

  endpoints(): Record<LocalServerKind, { baseUrl: string; custom: boolean }> {
    const out = {} as Record<LocalServerKind, { baseUrl: string; custom: boolean }>
    for (const kind of LOCAL_SERVER_KINDS) out[kind] = { baseUrl: maskUrl(this.baseUrl(kind)), custom: this.settings.get(kind) !== undefined }
    return out
  }

  /** Sets (or with null, resets to the default) a server's base URL, then probes it. */
  async setBaseUrl(kind: LocalServerKind, baseUrl: string | null): Promise<LocalServerStatus> {
    const value = baseUrl === null || baseUrl.trim() === '' ? undefined : normaliseServerUrl(baseUrl)
    this.settings.set(kind, value === DEFAULT_LOCAL_ENDPOINTS[kind] ? undefined : value)
    return this.detectOne(kind)
  }

  async detect(kinds: readonly LocalServerKind[] = LOCAL_SERVER_KINDS): Promise<LocalServerStatus[]> {
    return Promise.all(kinds.map((kind) => this.detectOne(kind)))
  }

  async detectOne(kind: LocalServerKind): Promise<LocalServerStatus> {
    const baseUrl = this.baseUrl(kind)
    const started = performance.now()
    const status: LocalServerStatus = {
      kind,
      baseUrl: maskUrl(baseUrl),
      custom: this.settings.get(kind) !== undefined,
      running: false,
      checkedAt: Date.now()
    }
    const deadline = AbortSignal.timeout(this.timeoutMs)
    const get: Getter = async (path) => {
      const response = await this.fetchImpl(`${baseUrl}${path}`, { signal: deadline, headers: { accept: 'application/json' } })
      const text = await response.text()
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        // Not JSON: not the server this probe looks for (the probes check the body's shape).
        body = undefined
      }
      return { status: response.status, body }
    }
    try {
      const found = await PROBES[kind](get)
      if (found) {
        status.running = true
        if (found.version) status.version = found.version
        if (found.modelCount !== undefined) status.modelCount = found.modelCount
      } else {
        status.reasonCode = 'wrongServer'
        status.reason = `Something answers at this address, but it is not ${LOCAL_SERVER_LABELS[kind]}.`
      }
    } catch (error) {
      Object.assign(status, describeFailure(error, deadline.aborted, this.timeoutMs))
    }
    status.latencyMs = Math.round(performance.now() - started)
    return status
  }
}

function describeFailure(error: unknown, timedOut: boolean, timeoutMs: number): Pick<LocalServerStatus, 'reason' | 'reasonCode'> {
  if (timedOut) return { reasonCode: 'timeout', reason: `No answer within ${timeoutMs} ms.` }
  const code = (error as { cause?: { code?: string } })?.cause?.code
  if (code === 'ECONNREFUSED') return { reasonCode: 'refused', reason: 'Not running (connection refused).' }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { reasonCode: 'unresolved', reason: 'The host name does not resolve.' }
  return { reasonCode: 'unreachable', reason: error instanceof Error ? `Not reachable: ${error.message}` : 'Not reachable.' }
}
