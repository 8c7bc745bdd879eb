import { createHash } from 'node:crypto'

/**
 * Which update the installed app takes. electron-updater fetches latest*.yml and downloads;
 * these rules decide (its `isUserWithinRollout` hook calls `decideUpdate`).
 */
export type UpdateMode = 'automatic' | 'notify' | 'off'
export const UPDATE_MODES: readonly UpdateMode[] = ['automatic', 'notify', 'off']

interface Version {
  core: [number, number, number]
  pre: (string | number)[]
}

const SEMVER = /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/

export function parseVersion(text: string): Version | undefined {
  const m = SEMVER.exec(text.trim())
  if (!m) return undefined
  const pre = m[4] ? m[4].split('.').map((id) => (/^\d+$/.test(id) ? Number(id) : id)) : []
  return { core: [Number(m[1]), Number(m[2]), Number(m[3])], pre }
}

/** Semantic-version precedence: -1, 0 or 1. A pre-release sorts before its release; build metadata is ignored. */
export function compareVersions(a: string, b: string): -1 | 0 | 1 {
  const x = parseVersion(a)
  const y = parseVersion(b)
  if (!x || !y) throw new Error(`Not a version: ${!x ? a : b}`)
  for (let i = 0; i < 3; i++) if (x.core[i] !== y.core[i]) return x.core[i]! < y.core[i]! ? -1 : 1
  if (x.pre.length === 0 || y.pre.length === 0) return x.pre.length === y.pre.length ? 0 : x.pre.length === 0 ? 1 : -1
  for (let i = 0; i < Math.max(x.pre.length, y.pre.length); i++) {
    const p = x.pre[i]
    const q = y.pre[i]
    if (p === undefined) return -1
    if (q === undefined) return 1
    if (p === q) continue
    if (typeof p === 'number' && typeof q === 'number') return p < q ? -1 : 1
    if (typeof p === 'number') return -1
    if (typeof q === 'number') return 1
    return p < q ? -1 : 1
  }
  return 0
}

/** The channel a version belongs to: `latest` for a release, else its pre-release tag (`1.2.0-beta.3` → `beta`). */
export function channelOf(version: string): string {
  const first = parseVersion(version)?.pre[0]
  return first === undefined ? 'latest' : typeof first === 'number' ? 'latest' : first
}

/** Channels in order of stability; an install on a channel also takes the more stable ones. */
const CHANNEL_ORDER = ['latest', 'beta', 'alpha']
export function channelAccepts(installChannel: string, offered: string): boolean {
  const mine = CHANNEL_ORDER.indexOf(installChannel)
  const theirs = CHANNEL_ORDER.indexOf(offered)
  if (mine < 0 || theirs < 0) return installChannel === offered
  return theirs <= mine
}

/**
 * A stable number 0–99 for this install and this release. The same install lands in the same
 * place while the rollout of a release widens (10 % → 50 % keeps the first 10 %), but which
 * installs go first differs from release to release.
 */
export function stagingBucket(installId: string, version: string): number {
  return createHash('sha256').update(`${installId}\n${version}`).digest().readUInt32BE(0) % 100
}

export interface UpdateOffer {
  /** The running app's version. */
  current: string
  /** latest*.yml's `version` and `stagingPercentage`. */
  offered: string
  stagingPercentage?: number
  /** This install's id (kept in the app's user-data folder, never sent anywhere). */
  installId: string
  /** The install's channel (`latest`, `beta`…). */
  channel: string
  /** The newest app version that opened this data folder: an update older than that could not read it. */
  dataVersion?: string
}

export type UpdateDecision =
  | { take: true }
  | { take: false; reason: 'invalid' | 'not-newer' | 'other-channel' | 'not-yet' | 'database-newer'; message: string }

export function decideUpdate(o: UpdateOffer): UpdateDecision {
  if (!parseVersion(o.offered) || !parseVersion(o.current)) return { take: false, reason: 'invalid', message: `The update server offered "${o.offered}", which is not a version.` }
  if (compareVersions(o.offered, o.current) <= 0) return { take: false, reason: 'not-newer', message: `Switchboard ${o.current} is up to date.` }
  if (!channelAccepts(o.channel, channelOf(o.offered))) return { take: false, reason: 'other-channel', message: `${o.offered} is a ${channelOf(o.offered)} release; this install follows ${o.channel}.` }
  if (o.dataVersion && parseVersion(o.dataVersion) && compareVersions(o.offered, o.dataVersion) < 0) {
    return { take: false, reason: 'database-newer', message: `Your data was last opened by Switchboard ${o.dataVersion}, newer than ${o.offered}; that version could not read it.` }
  }
  const percentage = Math.min(100, Math.max(0, o.stagingPercentage ?? 100))
  if (stagingBucket(o.installId, o.offered) >= percentage) {
    return { take: false, reason: 'not-yet', message: `${o.offered} is rolling out to ${percentage} % of installs; this one gets it later.` }
  }
  return { take: true }
}

/** Whether the build has a real update address (electron-builder.yml's placeholder ends in .invalid and never resolves). */
export function updateFeedConfigured(url: string | undefined): boolean {
  if (!url) return false
  try {
    const parsed = new URL(url)
    return parsed.protocol === 'https:' && !parsed.hostname.endsWith('.invalid')
  } catch {
    return false
  }
}

export function parseUpdateMode(value: unknown): UpdateMode {
  return UPDATE_MODES.includes(value as UpdateMode) ? (value as UpdateMode) : 'notify'
}

/** An updater failure in words (electron-updater's errors carry a code; the network's an errno). */
export function updateErrorMessage(error: unknown, feedUrl: string): string {
  const code = (error as { code?: unknown } | null)?.code
  const message = error instanceof Error ? error.message : String(error)
  if (code === 'ERR_UPDATER_CHANNEL_FILE_NOT_FOUND') {
    const file = /"([^"]+\.yml)"/.exec(message)?.[1] ?? 'the channel file'
    return `The update server at ${feedUrl} has no update for this system yet (${file} is missing).`
  }
  if (typeof code === 'string' && /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|ENETUNREACH)$/.test(code)) {
    return `The update server at ${feedUrl} could not be reached (${code}). Check your connection; Switchboard tries again later.`
  }
  if (/sha512 checksum mismatch/i.test(message)) return 'The downloaded update was damaged (its checksum did not match), so it was not installed. Switchboard downloads it again at the next check.'
  if (/ENOSPC/.test(message) || code === 'ENOSPC') return 'The disk is full, so the update could not be downloaded. Free some space and check again.'
  return `The update failed: ${message.split('\n')[0]}`
}
