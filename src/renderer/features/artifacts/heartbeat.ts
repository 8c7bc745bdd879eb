import { artifactSandboxOrigin } from '../../../shared/security/artifact-sandbox-policy'

/**
 * The heartbeat that finds a hung artifact. The app pings the frame every second;
 * a frame whose oldest unanswered ping is older than the limit is stopped. Counting from the
 * oldest unanswered ping (not from the last answer) keeps a throttled background tab, whose
 * timers run once a minute, from calling a healthy artifact hung.
 */
export const PING_EVERY_MS = 1000
/** An artifact's thread may be busy this long before it is stopped. */
export const HUNG_AFTER_MS = 4000
/** The runtime page has this long to load and say it is ready. */
export const LOAD_TIMEOUT_MS = 20_000

export interface HeartbeatState {
  startedAt: number
  ready: boolean
  /** When the oldest ping still without an answer was sent. */
  waitingSince?: number
}

export function heartbeatVerdict(state: HeartbeatState, now: number): 'ok' | 'hung' {
  if (!state.ready) return now - state.startedAt > LOAD_TIMEOUT_MS ? 'hung' : 'ok'
  return state.waitingSince !== undefined && now - state.waitingSince > HUNG_AFTER_MS ? 'hung' : 'ok'
}

/**
 * The sandbox page's address (`appOrigin` is the app's; see artifactSandboxOrigin), `net=1` when
 * allowed. An embedded frame also carries `load`, a nonce of this one load: the runtime says it
 * back in its `ready`, and the app renders into that load once only (see ArtifactFrame).
 */
export function artifactSandboxUrl(appOrigin: string, network: boolean, load?: string): string {
  const query = [...(load ? [`load=${encodeURIComponent(load)}`] : []), ...(network ? ['net=1'] : [])].join('&')
  return `${artifactSandboxOrigin(appOrigin)}/artifact-sandbox/index.html${query ? `?${query}` : ''}`
}

/** A fresh nonce for one load of the runtime frame. */
export function newLoadNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18))
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
}

/** The fragment "open in a new tab" carries the artifact in (the page is never told by a server). */
export function encodeArtifactFragment(payload: { artifactType: string; content: string; title: string }): string {
  const bytes = new TextEncoder().encode(JSON.stringify(payload))
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return encodeURIComponent(btoa(binary))
}
