import { useEffect } from 'react'
import { bridge } from '../../stores/app-store'

/**
 * When an agent that uses tool servers is opened, start them in the background (in parallel, in
 * the core), so the first reply does not wait for them. Errors show in Settings → Tools.
 */
export function usePrewarmTools(agentId: string | undefined): void {
  useEffect(() => {
    if (!agentId) return
    let cancelled = false
    void bridge()
      .call('tools.settings', {})
      .then((settings) => {
        const servers = settings.ok ? (settings.value.agents[agentId]?.servers ?? []) : []
        if (!cancelled && servers.length) void bridge().call('tools.connect', { ids: servers })
      })
    return () => {
      cancelled = true
    }
  }, [agentId])
}
