import { parseStrictUrl, type AppOrigins } from '../../shared/security/url-policy'

/**
 * Permission requests (camera, notifications, geolocation…) from web content are denied.
 * Dictation records through getUserMedia, so the microphone alone is granted, and only
 * to the app's own origin.
 */
export function decidePermission(permission: string, requestingUrl: string, origins: AppOrigins, details?: { mediaTypes?: string[] }): boolean {
  if (permission !== 'media') return false
  if (!isTrustedSenderUrl(requestingUrl, origins)) return false
  const types = details?.mediaTypes ?? []
  return types.length > 0 && types.every((t) => t === 'audio')
}

/** IPC sender check: a message is served only if its frame shows the app's own origin. */
export function isTrustedSenderUrl(frameUrl: unknown, origins: AppOrigins): boolean {
  const url = parseStrictUrl(frameUrl)
  if (!url || url.username || url.password) return false
  return [origins.appOrigin, origins.devOrigin].some((origin) => {
    if (!origin) return false
    const expected = parseStrictUrl(origin)
    return expected !== undefined && expected.protocol === url.protocol && expected.host === url.host
  })
}
