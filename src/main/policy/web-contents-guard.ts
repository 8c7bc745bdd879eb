import { decideWindowOpen, isAllowedNavigation, parseStrictUrl, type AppOrigins } from '../../shared/security/url-policy'
import { artifactWindowOptions, isArtifactWindowUrl } from './artifact-window'

export type WindowOpenDecision = { action: 'deny' } | { action: 'allow'; overrideBrowserWindowOptions: ReturnType<typeof artifactWindowOptions> }

/** The part of Electron's WebContents the guard uses (so it runs and is tested without Electron). */
export interface GuardedContents {
  setWindowOpenHandler(handler: (details: { url: string }) => WindowOpenDecision): void
  on(event: 'did-create-window', listener: (window: { webContents: GuardedContents }, details: { url: string }) => void): unknown
  on(event: 'will-navigate' | 'will-redirect', listener: (event: { preventDefault(): void }, url: string) => void): unknown
  on(event: 'will-frame-navigate', listener: (details: { preventDefault(): void; url: string; isMainFrame: boolean }) => void): unknown
  on(event: 'will-attach-webview', listener: (event: { preventDefault(): void }) => void): unknown
}

/**
 * May a frame go to this address? The main frame stays within the app. A subframe may also
 * show a blob: the app made itself (a PDF preview), or about:blank/about:srcdoc; never a
 * web page, a file, or another scheme.
 */
export function isAllowedFrameNavigation(raw: unknown, isMainFrame: boolean, origins: AppOrigins): boolean {
  if (isAllowedNavigation(raw, origins)) return true
  if (isMainFrame) return false
  if (raw === 'about:blank' || raw === 'about:srcdoc') return true
  const url = parseStrictUrl(raw)
  if (!url || url.protocol !== 'blob:') return false
  // blob:app://switchboard/uuid: the blob's origin is its inner URL's.
  return isAllowedNavigation(url.pathname, origins)
}

/**
 * Every web contents of the app: no new windows but an artifact's own (safe links go to the OS
 * browser), no navigation of any frame away from the app (will-navigate covers only the main
 * frame and only some triggers; will-frame-navigate covers every frame), no <webview>. An
 * artifact window is guarded like every contents, its main frame may not leave the artifact page
 * (not even for the app's own index.html), and it opens nothing (no window, no OS browser).
 */
export function guardWebContents(contents: GuardedContents, origins: AppOrigins, openExternal: (url: string) => void, options: { devTools?: boolean } = {}): void {
  contents.setWindowOpenHandler(({ url }) => {
    if (isArtifactWindowUrl(url, origins)) return { action: 'allow', overrideBrowserWindowOptions: artifactWindowOptions(options.devTools ?? false) }
    const decision = decideWindowOpen(url)
    if (decision.openExternally) openExternal(url)
    return { action: decision.action }
  })
  contents.on('did-create-window', (window) => {
    // What an artifact opens is not the user's choice: no windows, no OS browser, from there.
    window.webContents.setWindowOpenHandler(() => ({ action: 'deny' }))
    const stayOnArtifact = (event: { preventDefault(): void }, url: string) => {
      if (!isArtifactWindowUrl(url, origins)) event.preventDefault()
    }
    window.webContents.on('will-navigate', stayOnArtifact)
    window.webContents.on('will-redirect', stayOnArtifact)
  })
  contents.on('will-navigate', (event, url) => {
    if (!isAllowedNavigation(url, origins)) event.preventDefault()
  })
  contents.on('will-redirect', (event, url) => {
    if (!isAllowedNavigation(url, origins)) event.preventDefault()
  })
  contents.on('will-frame-navigate', (details) => {
    if (!isAllowedFrameNavigation(details.url, details.isMainFrame, origins)) details.preventDefault()
  })
  contents.on('will-attach-webview', (event) => event.preventDefault())
}
