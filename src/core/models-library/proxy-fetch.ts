import { EnvHttpProxyAgent, fetch as undiciFetch, ProxyAgent, type Dispatcher } from 'undici'

/**
 * `fetch` through an HTTP(S) proxy: the library's own setting when set, else the standard
 * environment variables (HTTPS_PROXY / HTTP_PROXY, NO_PROXY; lower case too), else direct.
 * Node 22's fetch ignores those variables unless NODE_USE_ENV_PROXY is set, so the library
 * routes its requests itself. Agents are kept per proxy address (their connections are reused).
 */
export function proxyFetch(proxy: string | undefined, env: NodeJS.ProcessEnv = process.env): typeof fetch {
  const dispatcher = dispatcherFor(proxy?.trim() || undefined, env)
  if (!dispatcher) return fetch
  return ((input: Parameters<typeof fetch>[0], init?: RequestInit) => undiciFetch(input as never, { ...(init as object), dispatcher } as never)) as unknown as typeof fetch
}

const agents = new Map<string, Dispatcher>()

function dispatcherFor(proxy: string | undefined, env: NodeJS.ProcessEnv): Dispatcher | undefined {
  if (proxy) {
    let agent = agents.get(proxy)
    if (!agent) agents.set(proxy, (agent = new ProxyAgent(proxy)))
    return agent
  }
  const httpsProxy = env['HTTPS_PROXY'] || env['https_proxy']
  const httpProxy = env['HTTP_PROXY'] || env['http_proxy']
  if (!httpsProxy && !httpProxy) return undefined
  const noProxy = env['NO_PROXY'] || env['no_proxy'] || ''
  const key = `env ${httpsProxy ?? ''} ${httpProxy ?? ''} ${noProxy}`
  let agent = agents.get(key)
  if (!agent) agents.set(key, (agent = new EnvHttpProxyAgent({ ...(httpsProxy ? { httpsProxy } : {}), ...(httpProxy ? { httpProxy } : {}), noProxy })))
  return agent
}

/** A proxy address the user typed: http(s) with a host, or a clear error naming the fix. */
export function checkProxyAddress(address: string): string {
  let url: URL
  try {
    url = new URL(address)
  } catch {
    throw new Error(`"${address}" is not a proxy address: use http://host:port (or https://, with user:password@ if the proxy needs them).`)
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) throw new Error('The proxy must be an http:// or https:// address with a host, such as http://proxy.example:8080.')
  return address.replace(/\/+$/, '')
}
