import { useEffect } from 'react'
import { useTranslation } from 'react-i18next'
import type { BuiltinToolName } from '../../../shared/tools/types'
import { BUILTIN_TOOLS } from '../../../shared/tools/types'
import { toolsActions, useTools } from './tools-store'

/**
 * In the agent settings dialog: which tool servers and built-in tools this agent may use (saved
 * at once). A picked server is started, and one that cannot start shows as failed with its error
 * here, where its tools were asked for (not only in Settings → Tools).
 */
export function AgentToolsField({ agentId }: { agentId: string }) {
  const { t } = useTranslation()
  const { servers, settings } = useTools()
  useEffect(() => {
    void toolsActions.load()
  }, [])
  const choice = settings?.agents[agentId] ?? { servers: [], builtins: [] }
  const picked = choice.servers.join(',')
  useEffect(() => {
    const ids = picked ? picked.split(',') : []
    if (ids.length) void toolsActions.connect(ids)
  }, [picked])
  const toggleServer = (id: string, on: boolean) => void toolsActions.setAgentTools(agentId, on ? [...choice.servers, id] : choice.servers.filter((s) => s !== id), choice.builtins)
  const toggleBuiltin = (name: BuiltinToolName, on: boolean) => void toolsActions.setAgentTools(agentId, choice.servers, on ? [...choice.builtins, name] : choice.builtins.filter((b) => b !== name))
  return (
    <fieldset className="space-y-1" data-testid="agent-tools">
      <legend className="text-sm font-medium">{t('tools.agent.title')}</legend>
      {servers.length === 0 && <p className="text-xs text-zinc-500">{t('tools.agent.none')}</p>}
      {servers.map((s) => (
        <label key={s.id} className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={choice.servers.includes(s.id)} onChange={(e) => toggleServer(s.id, e.target.checked)} data-testid="agent-tool-server" data-name={s.name} />
          {s.name}
          {!s.enabled && <span className="text-xs text-zinc-500">({t('tools.state.disabled')})</span>}
          {s.enabled && s.state === 'error' && choice.servers.includes(s.id) && (
            <span role="status" className="min-w-0 text-xs break-words text-red-600" data-testid="agent-tool-server-error">
              {t('tools.agent.failed', { error: s.error ?? '' })}
            </span>
          )}
        </label>
      ))}
      {BUILTIN_TOOLS.map((name) => (
        <label key={name} className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={choice.builtins.includes(name)} onChange={(e) => toggleBuiltin(name, e.target.checked)} data-testid={`agent-builtin-${name}`} />
          {t(`tools.builtin.${name}`)}
        </label>
      ))}
    </fieldset>
  )
}
