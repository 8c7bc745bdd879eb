/**
 * A part of the core that could not start (the keychain, a native engine): the reason, kept
 * where the service would be, so a handler answers it plainly instead of finding `undefined`.
 */
export interface Unavailable {
  readonly unavailable: true
  readonly reason: string
}

export const unavailable = (reason: string): Unavailable => ({ unavailable: true, reason })

export const isUnavailable = (value: unknown): value is Unavailable =>
  typeof value === 'object' && value !== null && (value as { unavailable?: unknown }).unavailable === true
