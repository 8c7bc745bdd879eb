import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { UsageSummaryRow } from '../../../shared/data/usage-log'
import { bridge } from '../../stores/app-store'
import { formatUsageCost } from './usage-format'

type SpendFilter = { agentId: string } | { conversationId: string }

/** What was spent for an agent or a conversation: per pricing currency, and the USD total. */
function useSpend(filter: SpendFilter, refreshKey?: unknown) {
  const [rows, setRows] = useState<UsageSummaryRow[]>()
  const id = 'agentId' in filter ? filter.agentId : filter.conversationId
  const kind = 'agentId' in filter ? 'agentId' : 'conversationId'
  useEffect(() => {
    let live = true
    void bridge()
      .call('data.usage.summary', { group: kind === 'agentId' ? 'agent' : 'conversation', [kind]: id })
      .then((r) => live && setRows(r.ok ? r.value : []))
    return () => {
      live = false
    }
  }, [id, kind, refreshKey])
  return rows
}

const describe = (rows: UsageSummaryRow[]) => {
  const usd = rows.reduce((a, r) => a + r.costUsd, 0)
  const other = rows.filter((r) => r.currency && r.currency !== 'USD' && r.cost > 0)
  return other.length ? `${formatUsageCost(usd, 'USD')} (${other.map((r) => formatUsageCost(r.cost, r.currency)).join(' + ')})` : formatUsageCost(usd, 'USD')
}

/** "Spent $0.0123 on 14 calls": for the agent settings (each agent shows its spend). */
export function AgentSpend({ agentId }: { agentId: string }) {
  const { t } = useTranslation()
  const rows = useSpend({ agentId })
  if (!rows) return null
  const calls = rows.reduce((a, r) => a + r.calls, 0)
  return (
    <p className="text-xs text-zinc-500" data-testid="agent-spend">
      {t('usage.agentSpend', { cost: describe(rows), calls })}
    </p>
  )
}

/**
 * This conversation's running cost, for the composer's owner to place (pass a key that changes
 * when a reply finishes, e.g. the message count, to refresh it). Renders nothing before the first cost.
 */
export function ConversationCost({ conversationId, refreshKey }: { conversationId: string; refreshKey?: unknown }) {
  const { t } = useTranslation()
  const rows = useSpend({ conversationId }, refreshKey)
  if (!rows || rows.every((r) => r.cost === 0)) return null
  return (
    <span className="text-xs text-zinc-500 tabular-nums" data-testid="conversation-cost" title={t('usage.conversationCostTitle')}>
      {describe(rows)}
    </span>
  )
}
