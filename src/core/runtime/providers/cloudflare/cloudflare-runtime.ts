import { AppErrorException } from '../../../../shared/errors/app-error'
import { loadProviderModels } from '../../../../shared/catalogue/loader'
import { processModelList } from '../../../../shared/catalogue/model-list'
import { requireApiKey, requireCloudflareTarget } from '../../credentials'
import { mapProviderError } from '../../errors/map-provider-error'
import { runChatStream } from '../../stream/run-chat-stream'
import { modelPath } from '../../model-path'
import type { CallOptions, ChatMessage, ChatRequest, ModelsResult, ProviderFactory } from '../../types'
import { CloudflareStreamTransformer } from './cloudflare-stream-transformer'
import { readSseData } from './read-sse-data'
import { safeParseJson } from '../../../../shared/utils/safe-json'

export const CLOUDFLARE_API = 'https://api.cloudflare.com/client/v4'

/** `…/accounts/{id}/ai/run` from an account id; a user's base URL (AI Gateway) wins. */
export function cloudflareRunBase(baseURL: string | undefined, accountId: string | undefined): string {
  if (baseURL?.trim()) return baseURL.trim().replace(/\/+$/, '')
  return `${CLOUDFLARE_API}/accounts/${encodeURIComponent(accountId!.trim())}/ai/run`
}

/** The account id for the model search: given, or read from an `/accounts/{id}/` base URL. */
const accountOf = (baseURL: string | undefined, accountId: string | undefined) =>
  accountId?.trim() || /\/accounts\/([^/]+)\//.exec(baseURL ?? '')?.[1]

const textOf = (content: ChatMessage['content']): string =>
  typeof content === 'string' ? content : (content ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('')

/** An HTTP failure in the shape mapProviderError reads (status, parsed body's first error). */
async function httpError(response: Response): Promise<Error> {
  const text = await response.text().catch(() => '')
  let message = text || `HTTP ${response.status}`
  // A plain-text error page parses to undefined and keeps its text as the message.
  const body = safeParseJson<{ errors?: Array<{ message?: string }> }>(text)
  const first = body?.errors?.[0]?.message
  if (first) message = first
  return Object.assign(new Error(message), { status: response.status, error: body })
}

/** Cloudflare Workers AI: POST {account}/ai/run/{model} with a bearer key; model search list. */
export const createCloudflareRuntime: ProviderFactory = (credentials, context) => {
  const provider = context.providerId
  const apiKey = requireApiKey(credentials, provider)
  requireCloudflareTarget(credentials, provider)
  const runBase = cloudflareRunBase(credentials.baseURL, credentials.accountId)
  const accountId = accountOf(credentials.baseURL, credentials.accountId)
  const mapError = (error: unknown, aborted = false) => mapProviderError(error, { provider, secrets: [apiKey], baseURL: runBase, aborted })
  const headers = (options?: CallOptions) => ({ ...options?.headers, authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' })

  return {
    id: provider,
    chat(request: ChatRequest, options?: CallOptions) {
      const transformer = new CloudflareStreamTransformer()
      return runChatStream<string>({
        provider,
        ...(options ? { options } : {}),
        transformer,
        mapError,
        sawEndMarker: () => transformer.finished,
        async open(signal, activity) {
          const body: Record<string, unknown> = {
            messages: request.messages.map((m) => ({
              role: m.role === 'developer' ? 'system' : m.role,
              content: textOf(m.content),
              ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}),
              ...(m.tool_calls?.length ? { tool_calls: m.tool_calls.map((c) => ({ id: c.id, type: 'function', function: c.function })) } : {})
            })),
            stream: true
          }
          if (request.tools?.length) body.tools = request.tools
          if (request.max_tokens !== undefined) body.max_tokens = request.max_tokens
          if (request.temperature !== undefined) body.temperature = request.temperature
          if (request.top_p !== undefined) body.top_p = request.top_p
          // Model ids contain slashes (@cf/meta/llama-3-8b-instruct) and are part of the path.
          const response = await (options?.fetch ?? fetch)(`${runBase}/${modelPath(request.model, provider)}`, { method: 'POST', headers: headers(options), body: JSON.stringify(body), signal })
          if (!response.ok) throw await httpError(response)
          if (!response.body) throw Object.assign(new Error('Workers AI returned no body'), { status: response.status })
          return readSseData(response.body, activity)
        }
      })
    },

    async models(options?: CallOptions): Promise<ModelsResult> {
      if (!accountId) throw new AppErrorException({ errorType: 'InvalidProviderAPIKey', message: 'Listing Cloudflare models needs the account id.', provider })
      try {
        // Next to the run endpoint when the base URL is an account URL (also a local fake).
        const url = /\/accounts\/[^/]+\/ai\/run$/.test(runBase)
          ? runBase.replace(/\/ai\/run$/, '/ai/models/search')
          : `${CLOUDFLARE_API}/accounts/${encodeURIComponent(accountId)}/ai/models/search`
        const response = await (options?.fetch ?? fetch)(url, { headers: headers(options), ...(options?.signal ? { signal: options.signal } : {}) })
        if (!response.ok) throw await httpError(response)
        const body = (await response.json()) as { result?: Array<{ name: string; description?: string; task?: { name?: string }; properties?: Array<{ property_id: string; value: string }> }> }
        const fetched = (body.result ?? [])
          .filter((m) => m.task?.name === 'Text Generation')
          .map((m) => {
            const context = Number(m.properties?.find((p) => p.property_id === 'context_window')?.value)
            return { id: m.name, ...(m.description ? { description: m.description } : {}), ...(Number.isFinite(context) && context > 0 ? { contextWindowTokens: context } : {}) }
          })
        const builtin = await loadProviderModels(provider).catch(() => [])
        return { models: processModelList(fetched, { builtin }) }
      } catch (error) {
        if (error instanceof AppErrorException) throw error
        throw new AppErrorException(mapError(error, options?.signal?.aborted))
      }
    }
  }
}
