import { extname, isAbsolute, join, normalize, relative, sep } from 'node:path'

export const APP_SCHEME = 'app'
export const APP_HOST = 'switchboard'
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`

/**
 * Maps an `app://switchboard/...` request to a file inside the renderer folder, or
 * undefined when the request must be refused (other host, path escaping the folder).
 * Unknown paths without an extension fall back to index.html (client-side routes).
 */
export function resolveAppRequest(requestUrl: string, rendererDir: string): string | undefined {
  let url: URL
  try {
    url = new URL(requestUrl)
  } catch {
    return undefined
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST || url.username || url.password) return undefined
  let pathname: string
  try {
    pathname = decodeURIComponent(url.pathname)
  } catch {
    return undefined
  }
  if (pathname.includes('\0') || pathname.includes('\\')) return undefined
  const wanted = pathname === '/' || pathname === '' ? 'index.html' : pathname.replace(/^\/+/, '')
  const file = normalize(join(rendererDir, wanted))
  const rel = relative(rendererDir, file)
  if (rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).includes('..')) return undefined
  if (!extname(file)) return join(rendererDir, 'index.html')
  return file
}
