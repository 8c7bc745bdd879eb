import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import { pluginException } from '../tool-errors'

/**
 * The URL policy of the built-in web tools: http(s) only, no credentials in the URL, and no
 * private, loopback or link-local addresses unless the user allows them (a model must not
 * be able to read the router's admin page or a cloud metadata endpoint). Every redirect hop
 * is checked again; the host is resolved and every address checked.
 */
export function isPrivateAddress(address: string): boolean {
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address
  if (isIP(v4) === 4) {
    const [a = 0, b = 0] = v4.split('.').map(Number)
    return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127) || a >= 224
  }
  const v6 = address.toLowerCase()
  return v6 === '::' || v6 === '::1' || v6.startsWith('fc') || v6.startsWith('fd') || v6.startsWith('fe80') || v6.startsWith('ff')
}

export async function checkUrl(raw: string, allowPrivate: boolean): Promise<URL> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw pluginException('PluginApiParamsError', `${JSON.stringify(raw.slice(0, 200))} is not a web address.`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw pluginException('PluginApiParamsError', `Only http and https pages can be read, not ${url.protocol}.`)
  if (url.username || url.password) throw pluginException('PluginApiParamsError', 'Addresses with a user name or password are not read.')
  if (allowPrivate) return url
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const addresses = isIP(host) ? [host] : await lookup(host, { all: true }).then((r) => r.map((a) => a.address), () => [])
  if (addresses.length === 0) throw pluginException('PluginGatewayError', `${host} could not be found.`)
  if (addresses.some(isPrivateAddress) || host === 'localhost')
    throw pluginException('PluginApiParamsError', `${host} is a private or local address; reading it is off (Settings → Tools → allow private addresses).`)
  return url
}

export interface SafeFetchOptions {
  allowPrivate: boolean
  maxBytes: number
  signal?: AbortSignal
  timeoutMs?: number
  fetch?: typeof fetch
  headers?: Record<string, string>
  method?: string
  body?: string
}

/** GET (or POST) with the policy on every hop and a byte cap on the body. */
export async function safeFetch(raw: string, options: SafeFetchOptions): Promise<{ url: URL; status: number; contentType: string; body: string }> {
  const doFetch = options.fetch ?? fetch
  const signal = AbortSignal.any([...(options.signal ? [options.signal] : []), AbortSignal.timeout(options.timeoutMs ?? 30_000)])
  let url = await checkUrl(raw, options.allowPrivate)
  for (let hop = 0; hop < 6; hop++) {
    const response = await doFetch(url, {
      redirect: 'manual',
      signal,
      method: options.method ?? 'GET',
      headers: { 'user-agent': 'Switchboard (+https://switchboard.local)', ...options.headers },
      ...(options.body !== undefined ? { body: options.body } : {})
    }).catch((error: unknown) => {
      throw pluginException('PluginGatewayError', `Could not reach ${url.host}: ${error instanceof Error ? error.message : String(error)}`)
    })
    const location = response.headers.get('location')
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel()
      url = await checkUrl(new URL(location, url).toString(), options.allowPrivate)
      continue
    }
    const declared = Number(response.headers.get('content-length') ?? '0')
    if (declared > options.maxBytes) {
      await response.body?.cancel()
      throw pluginException('PluginServerError', `${url.host} sent ${Math.round(declared / 1_048_576)} MB; the limit is ${Math.round(options.maxBytes / 1_048_576)} MB.`)
    }
    const reader = response.body?.getReader()
    const chunks: Uint8Array[] = []
    let size = 0
    while (reader) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.byteLength
      if (size > options.maxBytes) {
        await reader.cancel()
        throw pluginException('PluginServerError', `${url.host} sent more than ${Math.round(options.maxBytes / 1_048_576)} MB; the limit is ${Math.round(options.maxBytes / 1_048_576)} MB.`)
      }
      chunks.push(value)
    }
    return { url, status: response.status, contentType: response.headers.get('content-type') ?? '', body: Buffer.concat(chunks).toString('utf8') }
  }
  throw pluginException('PluginGatewayError', 'Too many redirects.')
}
