import { useId, useMemo, useRef, useState, type KeyboardEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { ChevronLeft, ChevronRight } from 'lucide-react'
import type { LiveMessage } from '../../../../shared/chat/apply-event'
import { competitionColumns, modelKey, type CompetitionMeta } from '../../../../shared/chat/competition'
import type { Message } from '../../../../shared/data/message'
import { isContinuation, replyChain } from '../branches'
import { chatActions, useChat } from '../chat-store'
import { errorAction } from '../error-card'
import { MessageBoundary } from '../message-boundary'
import type { MessageActions } from '../message-view'
import { JoinedMessageView } from '../joined-message-view'
import { joinContinuations } from '../joined-reply'
import { competitionActions } from './competition-store'
import { competitionLayout, useElementWidth } from './use-narrow'
import { CompetitorName } from './competitor-name'

interface Column {
  key: string
  /** The model's id (what tests and the tooltip name it by). */
  label: string
  model: { providerId: string; modelId: string }
  replies: LiveMessage[]
}

const button = 'rounded border border-zinc-300 px-2 py-0.5 text-xs hover:bg-zinc-100 disabled:opacity-40 dark:border-zinc-700 dark:hover:bg-zinc-800'

/**
 * The replies of an undecided competition side by side: one column per model, each with its own
 * reasoning, tool calls, usage, cost, speed and error (the ordinary message view), its own Stop,
 * Regenerate and "Continue with this" (not for a column that failed). When the space left for the
 * columns is too narrow for them (a small window, the artifact panel open) they become tabs.
 */
export function CompetitionTurn({
  userMessage,
  shownId,
  meta,
  all,
  streaming,
  actions,
  onErrorAction
}: {
  userMessage: Message
  /** The reply on the conversation's path (the branch shown): its column is the selected tab. */
  shownId: string
  meta: CompetitionMeta
  all: LiveMessage[]
  streaming: Record<string, true>
  actions: MessageActions
  onErrorAction(message: LiveMessage, fix?: 'trim'): void
}) {
  const { t } = useTranslation()
  const columns: Column[] = competitionColumns(all, userMessage, meta).map((c) => ({ key: modelKey(c.model), label: c.model.modelId, model: c.model, replies: c.replies }))
  const box = useRef<HTMLElement>(null)
  const width = useElementWidth(box)
  const tabs = width !== undefined && competitionLayout(width, columns.length) === 'tabs'
  // The selected tab is the branch shown, so it survives a reload and a regenerated column comes
  // to the front.
  const tab = Math.max(0, columns.findIndex((c) => c.replies.some((r) => r.id === shownId)))
  const branch = useChat((s) => s.branch)
  // A column's reply goes on inside the column (a continuation, tool steps): live while any part is.
  const liveColumn = (c: Column) => c.replies.some((r) => replyChain(all, r, branch).some((m) => streaming[m.id]))
  const anyStreaming = columns.some(liveColumn)
  const selectedIndex = Math.min(tab, columns.length - 1)
  const ids = useId()
  const tabId = (i: number) => `${ids}-tab-${i}`
  const panelId = (i: number) => `${ids}-panel-${i}`
  const tabRefs = useRef<(HTMLButtonElement | null)[]>([])
  const select = (i: number) => {
    const newest = columns[i]?.replies[columns[i]!.replies.length - 1]
    if (newest) competitionActions.show(newest)
  }
  // WAI-ARIA tabs: one tab in the Tab order (roving tabindex); Left/Right move between tabs
  // (wrapping), Home/End go to the first/last; the tab moved to is shown at once.
  const onTabKey = (event: KeyboardEvent<HTMLButtonElement>, i: number) => {
    const n = columns.length
    const to = event.key === 'ArrowRight' ? (i + 1) % n : event.key === 'ArrowLeft' ? (i - 1 + n) % n : event.key === 'Home' ? 0 : event.key === 'End' ? n - 1 : -1
    if (to < 0) return
    event.preventDefault()
    select(to)
    tabRefs.current[to]?.focus()
  }
  return (
    <section ref={box} className="px-3 py-2" data-testid="competition-turn" data-layout={tabs ? 'tabs' : 'columns'} aria-label={t('competition.title')}>
      <div className="mb-2 flex items-center justify-between gap-2 px-3 text-xs text-zinc-500">
        <span>{t('competition.choosePrompt')}</span>
        <button className={button} disabled={anyStreaming} onClick={() => void competitionActions.regenerate({ userMessage })} data-testid="competition-regenerate-all">
          {t('competition.regenerateAll')}
        </button>
      </div>
      {tabs && (
        <div role="tablist" aria-label={t('competition.title')} className="mb-2 flex gap-1 border-b border-zinc-200 px-3 dark:border-zinc-800" data-testid="competition-tabs">
          {columns.map((c, i) => {
            const selected = i === selectedIndex
            const live = liveColumn(c)
            return (
              <button
                key={c.key}
                ref={(el) => void (tabRefs.current[i] = el)}
                type="button"
                role="tab"
                id={tabId(i)}
                aria-selected={selected}
                aria-controls={panelId(i)}
                tabIndex={selected ? 0 : -1}
                data-testid="competition-tab"
                data-model={c.label}
                onClick={() => select(i)}
                onKeyDown={(event) => onTabKey(event, i)}
                className={`-mb-px border-b-2 px-3 py-1.5 text-sm ${selected ? 'border-accent font-medium' : 'border-transparent text-zinc-500'}`}
                title={c.key}
              >
                <CompetitorName providerId={c.model.providerId} modelId={c.model.modelId} />
                {live && <span className="ml-1 inline-block size-1.5 animate-pulse rounded-full bg-accent align-middle" aria-hidden />}
              </button>
            )
          })}
        </div>
      )}
      {/* In tabs every column stays mounted as its tab's panel (hidden unless selected), so each
          tab's aria-controls names a panel and a column keeps its picked version across switches. */}
      <div className="grid gap-2" style={{ gridTemplateColumns: `repeat(${tabs ? 1 : columns.length}, minmax(0, 1fr))` }}>
        {columns.map((column, i) => (
          <CompetitionColumn
            key={column.key}
            column={column}
            all={all}
            branch={branch}
            streaming={streaming}
            actions={actions}
            onErrorAction={onErrorAction}
            panel={tabs ? { id: panelId(i), labelledBy: tabId(i), hidden: i !== selectedIndex } : undefined}
          />
        ))}
      </div>
    </section>
  )
}

function CompetitionColumn({
  column,
  all,
  branch,
  streaming,
  actions,
  onErrorAction,
  panel
}: {
  column: Column
  all: LiveMessage[]
  branch: Record<string, string>
  streaming: Record<string, true>
  actions: MessageActions
  onErrorAction(message: LiveMessage, fix?: 'trim'): void
  /** At narrow widths the column is its tab's panel. */
  panel?: { id: string; labelledBy: string; hidden: boolean }
}) {
  const { t } = useTranslation()
  // The newest reply of this model unless the user stepped back to an earlier one in this column.
  const [picked, setPicked] = useState<string>()
  const index = Math.max(0, picked ? column.replies.findIndex((r) => r.id === picked) : column.replies.length - 1)
  const reply = column.replies[index]
  // The reply and what goes on from it: a stopped reply's Continue streams its continuation here,
  // in its own column (and tab panel), not below the columns.
  const chain = reply ? replyChain(all, reply, branch) : []
  const end = chain[chain.length - 1]
  const streamingPart = chain.find((m) => streaming[m.id])
  const live = Boolean(streamingPart)
  // Regenerate in a column asks the same model again, as a new reply in this column (from any
  // part of it: the column's reply is what is asked again).
  const columnActions = useMemo<MessageActions>(
    () => ({
      ...actions,
      regenerate: (m) => void competitionActions.regenerate({ reply: column.replies.find((r) => r.id === m.id) ?? reply ?? m }),
      deleteAndRegenerate: (m) => void competitionActions.regenerate({ reply: column.replies.find((r) => r.id === m.id) ?? reply ?? m }),
      switchBranch: (m, d) => {
        const next = column.replies[column.replies.findIndex((r) => r.id === m.id) + d]
        if (next) setPicked(next.id)
      }
    }),
    [actions, column.replies, reply]
  )
  const onPartError = (m: LiveMessage, fix?: 'trim') =>
    // The error card's plain retry asks the column's model again, as a competing reply (logged as such).
    !fix && m.error && errorAction(m.error) === 'retry' ? void competitionActions.regenerate({ reply: reply ?? m }) : onErrorAction(m, fix)
  return (
    <div
      className={`${panel?.hidden ? 'hidden' : 'flex'} min-w-0 flex-col rounded-lg border ${panel ? 'border-transparent' : 'border-zinc-200 dark:border-zinc-800'}`}
      data-testid="competition-column"
      data-model={column.label}
      data-status={end?.status}
      {...(panel ? { role: 'tabpanel', id: panel.id, 'aria-labelledby': panel.labelledBy, hidden: panel.hidden, tabIndex: 0 } : {})}
    >
      <header className="flex flex-wrap items-center gap-1.5 border-b border-zinc-200 px-3 py-1.5 dark:border-zinc-800">
        <span className="mr-auto truncate text-xs font-semibold" title={column.key}>
          <CompetitorName providerId={column.model.providerId} modelId={column.model.modelId} />
        </span>
        {column.replies.length > 1 && (
          <span className="flex items-center gap-1 text-xs text-zinc-500" data-testid="competition-versions">
            <button className={button} aria-label={t('chat.previousVersion')} disabled={index === 0} onClick={() => setPicked(column.replies[index - 1]!.id)}>
              <ChevronLeft aria-hidden className="size-3.5" />
            </button>
            {index + 1}/{column.replies.length}
            <button className={button} aria-label={t('chat.nextVersion')} disabled={index === column.replies.length - 1} onClick={() => setPicked(column.replies[index + 1]!.id)}>
              <ChevronRight aria-hidden className="size-3.5" />
            </button>
          </span>
        )}
        {live ? (
          <button className={button} onClick={() => streamingPart && chatActions.stop(streamingPart.id)} data-testid="competition-stop">
            {t('chat.stop')}
          </button>
        ) : (
          reply && (
            <>
              <button className={button} onClick={() => void competitionActions.regenerate({ reply })} data-testid="competition-regenerate">
                {t('chat.regenerate')}
              </button>
              {/* A failed reply is nothing to continue from: Regenerate (or the error card's action) instead. */}
              {end?.status !== 'error' && (
                <button
                  className="rounded bg-accent px-2 py-0.5 text-xs font-medium text-white hover:bg-accent-strong disabled:opacity-40"
                  onClick={() => void competitionActions.choose(reply)}
                  data-testid="competition-choose"
                >
                  {t('competition.choose')}
                </button>
              )}
            </>
          )
        )}
      </header>
      {reply ? (
        // A stopped reply and its continuations read as one text (joined-reply.ts).
        joinContinuations(chain).map((row, i, rows) => (
          <MessageBoundary key={row.view.id} content={row.view.content}>
            <JoinedMessageView
              row={row}
              branchIndex={0}
              branchCount={1}
              streaming={streaming}
              actions={columnActions}
              onErrorAction={onPartError}
              continued={isContinuation(rows[i + 1]?.parts[0], row.parts.at(-1))}
              continuation={isContinuation(row.parts[0], rows[i - 1]?.parts.at(-1))}
            />
          </MessageBoundary>
        ))
      ) : (
        <p className="p-3 text-xs text-zinc-500">{t('competition.starting')}</p>
      )}
    </div>
  )
}
