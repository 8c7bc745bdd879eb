import { randomBytes } from 'node:crypto'

/**
 * Session keys handed out after the access password. A key lets a reconnecting socket of
 * the same browser skip the password: it is bound to that browser's HttpOnly cookie (a key
 * read by a script, or seen in a log, is useless from anywhere else), it expires after a
 * while without use and after an absolute lifetime, and signing out revokes it.
 */
export interface SessionLifetimes {
  idleMs: number
  absoluteMs: number
}

export const DEFAULT_SESSION_LIFETIMES: SessionLifetimes = { idleMs: 12 * 3_600_000, absoluteMs: 7 * 24 * 3_600_000 }

interface Session {
  browser: string
  created: number
  lastUsed: number
}

export class AccessSessions {
  private readonly sessions = new Map<string, Session>()

  constructor(
    private readonly now: () => number = Date.now,
    private readonly lifetimes: SessionLifetimes = DEFAULT_SESSION_LIFETIMES
  ) {}

  /** A new key bound to `browser` (the browser cookie), or to nothing (then only its own socket uses it). */
  create(browser: string | undefined): string {
    const key = randomBytes(24).toString('base64url')
    const now = this.now()
    if (this.sessions.size > 10_000) for (const [old, session] of this.sessions) this.alive(old, session)
    this.sessions.set(key, { browser: browser ?? '', created: now, lastUsed: now })
    return key
  }

  /** Is this key valid from this browser? Marks it used. */
  resume(key: unknown, browser: string | undefined): boolean {
    if (typeof key !== 'string' || !browser) return false
    const session = this.sessions.get(key)
    if (!session || session.browser !== browser) return false
    if (!this.alive(key, session)) return false
    session.lastUsed = this.now()
    return true
  }

  /** For an open socket: still within its lifetimes? Marks it used. */
  touch(key: string | undefined): boolean {
    if (key === undefined) return true
    const session = this.sessions.get(key)
    if (!session || !this.alive(key, session)) return false
    session.lastUsed = this.now()
    return true
  }

  /** Does this browser hold a live session (for HTTP requests, which carry the cookie but no key)? */
  browserSignedIn(browser: string | undefined): boolean {
    if (!browser) return false
    for (const [key, session] of this.sessions) if (session.browser === browser && this.alive(key, session)) return true
    return false
  }

  /** Sign-out: revokes every key of this browser. */
  revokeBrowser(browser: string): void {
    if (!browser) return
    for (const [key, session] of this.sessions) if (session.browser === browser) this.sessions.delete(key)
  }

  private alive(key: string, session: Session): boolean {
    const now = this.now()
    if (now - session.lastUsed > this.lifetimes.idleMs || now - session.created > this.lifetimes.absoluteMs) {
      this.sessions.delete(key)
      return false
    }
    return true
  }
}
