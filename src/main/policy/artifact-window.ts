import { ARTIFACT_SANDBOX_PATH } from '../../shared/security/artifact-sandbox-policy'
import { parseStrictUrl, type AppOrigins } from '../../shared/security/url-policy'
import { secureWebPreferences, type SecureWebPreferences } from './web-preferences'

/**
 * "Open in its own window" for an artifact. The one window the app lets a page open
 * is the artifact runtime page of the app's own protocol, `app://switchboard/artifact-sandbox/
 * index.html` (`?net=1` when the user allowed that artifact the network), with the artifact in
 * the fragment. The page is served with the sandbox policy (`sandbox allow-scripts`: an opaque
 * origin, no network), and the window gets no preload: no bridge, whatever the artifact does.
 */
export function isArtifactWindowUrl(raw: unknown, origins: AppOrigins): boolean {
  const url = parseStrictUrl(raw)
  const app = parseStrictUrl(origins.appOrigin)
  if (!url || !app || url.username || url.password) return false
  return (
    url.protocol === app.protocol &&
    url.host === app.host &&
    url.pathname === `${ARTIFACT_SANDBOX_PATH}index.html` &&
    (url.search === '' || url.search === '?net=1')
  )
}

/** The artifact window's options: a plain window whose web preferences are the app's, minus the preload. */
export function artifactWindowOptions(devTools: boolean): {
  width: number
  height: number
  minWidth: number
  minHeight: number
  title: string
  autoHideMenuBar: true
  backgroundColor: string
  webPreferences: Omit<SecureWebPreferences, 'preload'>
} {
  const { preload: _none, ...webPreferences } = secureWebPreferences({ preload: '', devTools })
  return {
    width: 960,
    height: 720,
    minWidth: 320,
    minHeight: 240,
    title: 'Artifact',
    autoHideMenuBar: true,
    backgroundColor: '#ffffff',
    webPreferences: { ...webPreferences, spellcheck: false }
  }
}
