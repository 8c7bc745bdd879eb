import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { BlockList, isIP, type LookupFunction } from 'node:net'

/**
 * Which addresses the web tools may connect to when private addresses are not allowed: none of
 * this host, its networks, link-local (cloud metadata), multicast or reserved ranges, in any of
 * their IPv4 or IPv6 spellings. Decided on parsed addresses (node:net), never on string prefixes,
 * and on the address a connection is really made to (see `guardedLookup`).
 */
const blocked = new BlockList()
const V4: Array<[string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4]
]
const V6: Array<[string, number]> = [
  // Unspecified, loopback and the deprecated IPv4-compatible form (::a.b.c.d).
  ['::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  // Teredo tunnels, documentation, ORCHID.
  ['2001::', 32],
  ['2001:db8::', 32],
  ['2001:10::', 28],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8]
]
for (const [net, prefix] of V4) blocked.addSubnet(net, prefix, 'ipv4')
for (const [net, prefix] of V6) blocked.addSubnet(net, prefix, 'ipv6')

/** The eight 16-bit words of an IPv6 address (any valid spelling), or undefined. */
function ipv6Words(address: string): number[] | undefined {
  let normal: string
  try {
    // The URL parser writes every spelling (dotted tail, leading zeros, upper case) one way.
    normal = new URL(`http://[${address}]/`).hostname.slice(1, -1)
  } catch {
    return undefined
  }
  const [head = '', tail] = normal.split('::')
  const part = (s: string) => (s ? s.split(':').map((w) => parseInt(w, 16)) : [])
  const front = part(head)
  const back = tail === undefined ? [] : part(tail)
  const words = tail === undefined ? front : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back]
  return words.length === 8 && words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff) ? words : undefined
}

const v4Of = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`

/** True for any address the tools must not reach without the user's leave; anything unparsable counts as private. */
export function isPrivateAddress(raw: string): boolean {
  let address = raw.trim()
  if (address.startsWith('[') && address.endsWith(']')) address = address.slice(1, -1)
  // A zone index (fe80::1%eth0) only exists for link-local addresses.
  if (address.includes('%')) return true
  const family = isIP(address)
  if (family === 4) return blocked.check(address, 'ipv4')
  if (family !== 6) return true
  const words = ipv6Words(address)
  if (!words) return true
  if (blocked.check(address, 'ipv6')) return true
  const zeros = (from: number, to: number) => words.slice(from, to).every((w) => w === 0)
  // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) reach the IPv4 address inside.
  if (zeros(0, 5) && words[5] === 0xffff) return blocked.check(v4Of(words[6]!, words[7]!), 'ipv4')
  if (words[0] === 0x64 && words[1] === 0xff9b && zeros(2, 6)) return blocked.check(v4Of(words[6]!, words[7]!), 'ipv4')
  // 6to4 (2002:AABB:CCDD::/48) is routed to the IPv4 address it names.
  if (words[0] === 0x2002) return blocked.check(v4Of(words[1]!, words[2]!), 'ipv4')
  return false
}

export type Resolve = (hostname: string) => Promise<LookupAddress[]>

const systemResolve: Resolve = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))))

export class PrivateAddressError extends Error {
  constructor(readonly host: string) {
    super(`${host} is a private or local address`)
  }
}

/**
 * The `lookup` a connection uses: the name is resolved once, here, and the socket connects to
 * what this returns. Every address is checked, so an answer that changes between a check and the
 * connect (DNS rebinding) has nothing to slip through: there is no earlier check.
 */
export function guardedLookup(resolve: Resolve = systemResolve, allowPrivate = false): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (all) => {
        const wanted = options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all
        if (wanted.length === 0) return callback(Object.assign(new Error(`${hostname} could not be found.`), { code: 'ENOTFOUND' }), '', 0)
        if (!allowPrivate && wanted.some((a) => isPrivateAddress(a.address))) return callback(new PrivateAddressError(hostname), '', 0)
        if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, wanted)
        callback(null, wanted[0]!.address, wanted[0]!.family)
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0)
    )
  }
}
