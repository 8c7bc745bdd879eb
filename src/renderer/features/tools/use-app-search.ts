import { useEffect } from 'react'
import { bridge } from '../../stores/app-store'
import type { ToolSettings } from '../../../shared/tools/types'
import { useTools } from './tools-store'

/** A search provider is set up in Settings → Tools (SearXNG needs its address; the others their key, checked by the core). */
export const appSearchConfigured = (settings: ToolSettings | undefined): boolean =>
  Boolean(settings && settings.approvals['builtin/web_search'] !== 'never' && (settings.search.provider !== 'searxng' || settings.search.url))

/**
 * Whether the composer may offer its search toggle for a model without search of its own
 *: the core then routes the toggle to the app's `web_search` through the tool loop.
 */
export function useAppSearch(): boolean {
  const settings = useTools((s) => s.settings)
  useEffect(() => {
    if (useTools.getState().settings) return
    void bridge()
      .call('tools.settings', {})
      .then((r) => {
        if (r.ok && !useTools.getState().settings) useTools.setState({ settings: r.value })
      })
  }, [])
  return appSearchConfigured(settings)
}
