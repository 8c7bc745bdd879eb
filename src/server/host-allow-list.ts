import { isIP } from 'node:net'

/**
 * DNS rebinding guard. A page on an attacker's domain can make its name resolve to this
 * server; the browser then treats the app as that domain's own origin (the Origin check
 * passes because Origin equals Host). The Host header still carries the attacker's name,
 * so only the names the server is really reachable under are accepted:
 * IP literals (a rebinding page can never have an IP literal as its origin unless it is
 * served from that address), `localhost` and `*.localhost` (browsers resolve them to
 * loopback themselves), the `--host` address, and names given with `--allowed-host`.
 */
export function createHostAllowList(options: { host: string; allowedHosts?: readonly string[] }): (hostHeader: string | undefined) => boolean {
  const named = new Set([options.host, ...(options.allowedHosts ?? [])].map((h) => normaliseName(h)))
  return (hostHeader) => {
    const name = hostnameOf(hostHeader)
    if (name === undefined) return false
    if (isIP(name) !== 0) return true
    if (name === 'localhost' || name.endsWith('.localhost')) return true
    return named.has(name)
  }
}

const normaliseName = (name: string) => name.trim().toLowerCase().replace(/\.$/, '').replace(/^\[(.*)\]$/, '$1')

/** The host name of a Host header (`name`, `name:port`, `[v6]:port`), lower-cased, or undefined if malformed. */
export function hostnameOf(hostHeader: string | undefined): string | undefined {
  if (!hostHeader || hostHeader.length > 255) return undefined
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/.exec(hostHeader)
  if (!match) return undefined
  return normaliseName(match[1]!)
}
