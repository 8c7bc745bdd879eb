import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { Socket } from 'node:net'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import type { Readable } from 'node:stream'
import { pluginException } from '../tool-errors'
import { guardedLookup, isPrivateAddress, PrivateAddressError, type Resolve } from './address-policy'

export { isPrivateAddress } from './address-policy'

/**
 * The URL policy of the built-in web tools: http(s) only, no credentials in the URL, and no
 * private, loopback or link-local addresses unless the user allows them (a model must not be
 * able to read the router's admin page, a local service or a cloud metadata endpoint). The
 * address is checked where the connection is made (address-policy.ts), on every redirect hop.
 */
const privateRefusal = (host: string) =>
  pluginException('PluginApiParamsError', `${host} is a private or local address; reading it is off (Settings → Tools → allow private addresses).`)

/** The address as given: scheme, credentials, and an address literal (in any spelling the URL parser accepts). */
export function checkUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw pluginException('PluginApiParamsError', `${JSON.stringify(raw.slice(0, 200))} is not a web address.`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw pluginException('PluginApiParamsError', `Only http and https pages can be read, not ${url.protocol}.`)
  if (url.username || url.password) throw pluginException('PluginApiParamsError', 'Addresses with a user name or password are not read.')
  const host = url.hostname.replace(/^\[|\]$/g, '')
  // A literal is connected to without a lookup: it is checked here (names are checked on connect).
  if (!allowPrivate && /^[\d.]+$|:/.test(host) && isPrivateAddress(host)) throw privateRefusal(host)
  return url
}

export interface SafeFetchOptions {
  allowPrivate: boolean
  maxBytes: number
  signal?: AbortSignal
  timeoutMs?: number
  /** Tests: a transport of their own (the address policy then applies to the URL only). */
  fetch?: typeof fetch
  /** Tests: how names resolve (a name that points at this machine, say). */
  resolve?: Resolve
  headers?: Record<string, string>
  method?: string
  body?: string
}

interface Hop {
  status: number
  location: string | null
  contentType: string
  read(): Promise<Buffer>
  discard(): void
}

const tooBig = (host: string, maxBytes: number, declared?: number) =>
  pluginException(
    'PluginServerError',
    declared !== undefined
      ? `${host} sent ${Math.round(declared / 1_048_576)} MB; the limit is ${Math.round(maxBytes / 1_048_576)} MB.`
      : `${host} sent more than ${Math.round(maxBytes / 1_048_576)} MB; the limit is ${Math.round(maxBytes / 1_048_576)} MB.`
  )

/** One request over node:http(s), connecting only where the address policy lets it. */
function requestOnce(url: URL, options: SafeFetchOptions, signal: AbortSignal): Promise<Hop> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest
    const refuseSocket = (socket: Socket) => {
      // The address really connected to, whatever name or spelling led there.
      const remote = socket.remoteAddress
      if (!options.allowPrivate && (!remote || isPrivateAddress(remote))) req.destroy(new PrivateAddressError(url.hostname))
    }
    const req = send(
      url,
      {
        method: options.method ?? 'GET',
        agent: false,
        signal,
        headers: { 'user-agent': 'Switchboard (+https://switchboard.local)', 'accept-encoding': 'gzip, deflate, br', ...options.headers },
        lookup: guardedLookup(options.resolve, options.allowPrivate)
      },
      (res: IncomingMessage) => {
        const encoding = String(res.headers['content-encoding'] ?? '').toLowerCase()
        const decoded: Readable = encoding === 'gzip' ? res.pipe(createGunzip()) : encoding === 'br' ? res.pipe(createBrotliDecompress()) : encoding === 'deflate' ? res.pipe(createInflate()) : res
        resolve({
          status: res.statusCode ?? 0,
          location: typeof res.headers.location === 'string' ? res.headers.location : null,
          contentType: String(res.headers['content-type'] ?? ''),
          discard: () => res.destroy(),
          read: () =>
            new Promise<Buffer>((done, fail) => {
              const declared = Number(res.headers['content-length'] ?? '0')
              if (!encoding && declared > options.maxBytes) {
                res.destroy()
                return fail(tooBig(url.host, options.maxBytes, declared))
              }
              const chunks: Buffer[] = []
              let size = 0
              decoded.on('data', (chunk: Buffer) => {
                size += chunk.length
                // Counted after decoding: a small compressed body cannot unpack into gigabytes here.
                if (size > options.maxBytes) {
                  res.destroy()
                  decoded.destroy()
                  fail(tooBig(url.host, options.maxBytes))
                } else chunks.push(chunk)
              })
              decoded.once('end', () => done(Buffer.concat(chunks)))
              decoded.once('error', (error) => fail(error))
              res.once('error', (error) => fail(error))
            })
        })
      }
    )
    req.once('socket', (socket: Socket) => {
      if (socket.remoteAddress) refuseSocket(socket)
      else socket.once('connect', () => refuseSocket(socket))
    })
    req.once('error', reject)
    if (options.body !== undefined) req.write(options.body)
    req.end()
  })
}

/** The same hop through an injected fetch (tests). */
async function fetchOnce(url: URL, options: SafeFetchOptions, signal: AbortSignal): Promise<Hop> {
  const response = await options.fetch!(url, {
    redirect: 'manual',
    signal,
    method: options.method ?? 'GET',
    headers: { 'user-agent': 'Switchboard (+https://switchboard.local)', ...options.headers },
    ...(options.body !== undefined ? { body: options.body } : {})
  })
  return {
    status: response.status,
    location: response.headers.get('location'),
    contentType: response.headers.get('content-type') ?? '',
    discard: () => void response.body?.cancel(),
    read: async () => {
      const declared = Number(response.headers.get('content-length') ?? '0')
      if (declared > options.maxBytes) {
        await response.body?.cancel()
        throw tooBig(url.host, options.maxBytes, declared)
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
          throw tooBig(url.host, options.maxBytes)
        }
        chunks.push(value)
      }
      return Buffer.concat(chunks)
    }
  }
}

/** GET (or POST) with the policy on every hop and a byte cap on the body. */
export async function safeFetch(raw: string, options: SafeFetchOptions): Promise<{ url: URL; status: number; contentType: string; body: string }> {
  const signal = AbortSignal.any([...(options.signal ? [options.signal] : []), AbortSignal.timeout(options.timeoutMs ?? 30_000)])
  let url = checkUrl(raw, options.allowPrivate)
  for (let hop = 0; hop < 6; hop++) {
    const current = url
    const response = await (options.fetch ? fetchOnce : requestOnce)(current, options, signal).catch((error: unknown) => {
      if (error instanceof PrivateAddressError) throw privateRefusal(current.hostname)
      const cause = (error as { cause?: unknown }).cause
      if (cause instanceof PrivateAddressError) throw privateRefusal(current.hostname)
      if ((error as { code?: string }).code === 'ENOTFOUND') throw pluginException('PluginGatewayError', `${current.hostname} could not be found.`)
      throw pluginException('PluginGatewayError', `Could not reach ${current.host}: ${error instanceof Error ? error.message : String(error)}`)
    })
    if (response.status >= 300 && response.status < 400 && response.location) {
      response.discard()
      url = checkUrl(new URL(response.location, current).toString(), options.allowPrivate)
      continue
    }
    const body = await response.read()
    return { url: current, status: response.status, contentType: response.contentType, body: body.toString('utf8') }
  }
  throw pluginException('PluginGatewayError', 'Too many redirects.')
}
