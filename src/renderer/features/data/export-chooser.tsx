import { useEffect, useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { Agent } from '../../../shared/data/agent'
import type { Conversation } from '../../../shared/data/conversation'
import { bridge } from '../../stores/app-store'

export interface Selection {
  agentIds: string[]
  conversationIds: string[]
}

/**
 * Choosing what to export: agents (each brings all its conversations) and single conversations,
 * grouped under their agent, with a filter for long lists.
 */
export function ExportChooser({ busy, onExport, onClose }: { busy: boolean; onExport(selection: Selection): void; onClose(): void }) {
  const { t } = useTranslation()
  const [agents, setAgents] = useState<Agent[]>([])
  const [conversations, setConversations] = useState<Conversation[]>([])
  const [agentIds, setAgentIds] = useState<Set<string>>(new Set())
  const [conversationIds, setConversationIds] = useState<Set<string>>(new Set())
  const [filter, setFilter] = useState('')
  useEffect(() => {
    void bridge().call('data.agents.list', {}).then((r) => r.ok && setAgents(r.value))
    void bridge().call('data.conversations.list', {}).then((r) => r.ok && setConversations(r.value))
  }, [])
  const shown = useMemo(() => {
    const q = filter.trim().toLowerCase()
    return agents.map((agent) => ({
      agent,
      conversations: conversations.filter((c) => c.agentId === agent.id && (!q || c.title.toLowerCase().includes(q) || agent.name.toLowerCase().includes(q)))
    })).filter((g) => !q || g.conversations.length > 0 || g.agent.name.toLowerCase().includes(q))
  }, [agents, conversations, filter])
  const toggle = (set: Set<string>, id: string, update: (s: Set<string>) => void) => {
    const next = new Set(set)
    if (next.has(id)) next.delete(id)
    else next.add(id)
    update(next)
  }
  const count = conversations.filter((c) => agentIds.has(c.agentId) || conversationIds.has(c.id)).length
  return (
    <div className="space-y-2 rounded-md border border-zinc-300 p-3 text-sm dark:border-zinc-700" data-testid="export-chooser">
      <input
        value={filter}
        onChange={(e) => setFilter(e.target.value)}
        placeholder={t('dataPage.filter')}
        className="w-full rounded-md border border-zinc-300 bg-transparent px-2 py-1 dark:border-zinc-700"
        data-testid="export-filter"
      />
      <ul className="max-h-64 space-y-1 overflow-auto">
        {shown.map(({ agent, conversations: list }) => (
          <li key={agent.id}>
            <label className="flex items-center gap-2 font-medium">
              <input type="checkbox" checked={agentIds.has(agent.id)} onChange={() => toggle(agentIds, agent.id, setAgentIds)} data-testid={`export-agent-${agent.name}`} />
              {agent.name} <span className="font-normal text-zinc-500">· {t('dataPage.allConversations')}</span>
            </label>
            <ul className="ml-6">
              {list.map((c) => (
                <li key={c.id}>
                  <label className="flex items-center gap-2">
                    <input
                      type="checkbox"
                      disabled={agentIds.has(agent.id)}
                      checked={agentIds.has(agent.id) || conversationIds.has(c.id)}
                      onChange={() => toggle(conversationIds, c.id, setConversationIds)}
                      data-testid={`export-conversation-${c.title}`}
                    />
                    {c.title || t('dataPage.untitled')}
                  </label>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
      <div className="flex items-center gap-2">
        <button
          disabled={busy || (agentIds.size === 0 && conversationIds.size === 0)}
          onClick={() => onExport({ agentIds: [...agentIds], conversationIds: [...conversationIds] })}
          className="bg-accent rounded-md px-3 py-1.5 text-white disabled:opacity-50"
          data-testid="export-selected-confirm"
        >
          {t('dataPage.exportSelectedCount', { count })}
        </button>
        <button onClick={onClose} className="text-xs underline">
          {t('dataTransfer.cancel')}
        </button>
      </div>
    </div>
  )
}
