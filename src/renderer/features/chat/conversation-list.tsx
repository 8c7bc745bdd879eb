import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useMessageSearch } from '../search/use-message-search'
import { isPictureAvatar } from './avatar'
import { sortConversations } from './branches'
import { dateGroup } from './date-group'
import { chatActions, useChat } from './chat-store'
import { ImportAgentButton } from './agent-actions'
import { MessageCircle, Pencil, Pin, PinOff, Plus, Trash2 } from 'lucide-react'
import { agentName, conversationTitle, DEFAULT_AGENT_AVATAR } from './display-names'

/** Conversations of the agents, with search, rename, pin and delete (undoable). */
export function ConversationList() {
  const { t } = useTranslation()
  const conversations = useChat((s) => s.conversations)
  const agents = useChat((s) => s.agents)
  const agentId = useChat((s) => s.agentId)
  const currentId = useChat((s) => s.currentId)
  const pendingDelete = useChat((s) => s.pendingDelete)
  const defaultAgentId = useChat((s) => s.defaultAgentId)
  const [query, setQuery] = useState('')
  const [renaming, setRenaming] = useState<{ id: string; title: string }>()
  const shown = useMemo(() => {
    const q = query.trim().toLowerCase()
    return sortConversations(conversations).filter((c) => (!agentId || c.agentId === agentId) && (!q || conversationTitle(c.title, t).toLowerCase().includes(q)))
  }, [conversations, query, agentId, t])
  const hits = useMessageSearch(query, { ...(agentId ? { agentId } : {}), limit: 30 })
  const searching = query.trim().length > 0
  const item = 'inline-grid place-items-center rounded p-1 text-xs text-zinc-500 hover:bg-zinc-200 hover:text-zinc-900 dark:hover:bg-zinc-700 dark:hover:text-white'
  return (
    <aside className="flex w-64 shrink-0 flex-col border-r border-zinc-200 dark:border-zinc-800" aria-label={t('chat.conversations')}>
      <div className="border-b border-zinc-200 p-2 dark:border-zinc-800" data-testid="agent-list">
        <div className="flex items-center justify-between px-1 pb-1 text-xs font-semibold text-zinc-500 uppercase">
          {t('agent.agents')}
          <ImportAgentButton className={item} rootClassName="mr-1 ml-auto" />
          <button
            className={item}
            aria-label={t('agent.newAgent')}
            data-testid="new-agent"
            onClick={() => {
              void chatActions.createAgent(t('agent.newAgentName'))
              location.hash = '/chat'
            }}
          >
            <Plus aria-hidden className="size-3.5" />
          </button>
        </div>
        <ul className="max-h-40 overflow-y-auto">
          {agents.map((a) => (
            <li key={a.id} data-default={a.id === defaultAgentId || undefined}>
              <button
                onClick={() => {
                  chatActions.selectAgent(a.id)
                  location.hash = '/chat'
                }}
                aria-current={a.id === agentId ? 'true' : undefined}
                className={`flex w-full items-center gap-2 rounded-md px-2 py-1 text-left text-sm ${a.id === agentId ? 'bg-zinc-200 dark:bg-zinc-800' : 'hover:bg-zinc-100 dark:hover:bg-zinc-800/60'}`}
              >
                <span className="grid size-6 shrink-0 place-items-center overflow-hidden rounded-full bg-zinc-100 text-sm dark:bg-zinc-800" aria-hidden>
                  {isPictureAvatar(a.avatar) ? (
                    <img src={a.avatar} alt="" className="size-full object-cover" />
                  ) : a.avatar === DEFAULT_AGENT_AVATAR ? (
                    // The default agent's stored emoji is drawn as the app's own icon.
                    <MessageCircle className="size-3.5 text-accent" />
                  ) : (
                    (a.avatar ?? agentName(a, defaultAgentId, t).slice(0, 1))
                  )}
                </span>
                <span className="truncate">{agentName(a, defaultAgentId, t)}</span>
              </button>
            </li>
          ))}
        </ul>
      </div>
      <div className="space-y-2 p-3">
        <a href="#/chat" data-testid="new-chat" className="block rounded-md bg-accent px-3 py-2 text-center text-sm font-medium text-white hover:bg-accent-strong" title="Ctrl/Cmd+N">
          {t('chat.newChat')}
        </a>
        <input
          aria-label={t('chat.searchConversations')}
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          placeholder={t('chat.searchConversations')}
          data-testid="conversation-search"
          className="w-full rounded-md border border-zinc-300 bg-transparent px-2.5 py-1.5 text-sm dark:border-zinc-700"
        />
      </div>
      {searching && hits !== undefined && hits.length === 0 && shown.length === 0 && (
        <p className="px-4 py-2 text-sm text-zinc-500" data-testid="search-no-results" role="status">
          {t('search.noResults')}
        </p>
      )}
      {searching && hits && hits.length > 0 && (
        <section className="max-h-[50%] shrink-0 overflow-y-auto border-b border-zinc-200 px-2 pb-2 dark:border-zinc-800" aria-label={t('search.messages')}>
          <h2 className="px-2 pb-1 text-xs font-semibold text-zinc-500 uppercase">{t('search.messages')}</h2>
          <ul data-testid="search-results">
            {hits.map((hit) => (
              <li key={hit.messageId}>
                <button
                  className="w-full rounded-md px-2 py-1.5 text-left text-sm hover:bg-zinc-100 dark:hover:bg-zinc-800/60"
                  data-testid="search-hit"
                  onClick={() => chatActions.showMessage(hit.conversationId, hit.messageId)}
                >
                  <span className="flex justify-between gap-2 text-xs text-zinc-500">
                    <span className="truncate font-medium">{conversationTitle(hit.conversationTitle, t)}</span>
                    <time dateTime={new Date(hit.createdAt).toISOString()} className="shrink-0">
                      {new Date(hit.createdAt).toLocaleDateString()}
                    </time>
                  </span>
                  <span className="line-clamp-2 text-zinc-700 dark:text-zinc-300">
                    {hit.snippet.map((run, i) =>
                      run.match ? (
                        <mark key={i} className="rounded bg-amber-200 px-0.5 text-inherit dark:bg-amber-700/60">
                          {run.text}
                        </mark>
                      ) : (
                        <span key={i}>{run.text}</span>
                      )
                    )}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
      <ul className="min-h-0 flex-1 overflow-y-auto px-2 pb-2" data-testid="conversation-list">
        {shown.map((c, i) => (
          <li key={c.id} className="group">
            {dateGroup(shown[i - 1]) !== dateGroup(c) && (
              <h3 className="px-2 pt-3 pb-1 text-xs font-semibold text-zinc-500" data-testid="conversation-group">
                {groupLabel(dateGroup(c), t)}
              </h3>
            )}
            {renaming?.id === c.id ? (
              <form
                onSubmit={(e) => {
                  e.preventDefault()
                  if (renaming.title.trim()) void chatActions.rename(c.id, renaming.title.trim())
                  setRenaming(undefined)
                }}
              >
                <input
                  autoFocus
                  aria-label={t('chat.rename')}
                  value={renaming.title}
                  onChange={(e) => setRenaming({ id: c.id, title: e.target.value })}
                  onBlur={() => setRenaming(undefined)}
                  onKeyDown={(e) => e.key === 'Escape' && setRenaming(undefined)}
                  data-testid="rename-input"
                  className="w-full rounded border border-accent bg-transparent px-2 py-1 text-sm"
                />
              </form>
            ) : (
              <div className={`flex items-center gap-1 rounded-md px-2 py-1.5 text-sm ${c.id === currentId ? 'bg-zinc-200 dark:bg-zinc-800' : 'hover:bg-zinc-100 dark:hover:bg-zinc-800/60'}`}>
                <a href={`#/chat/${c.id}`} className="min-w-0 flex-1 truncate" data-testid="conversation-item" aria-current={c.id === currentId ? 'page' : undefined}>
                  {c.pinned && <Pin aria-label={t('chat.pinned')} className="mr-1 inline size-3 -translate-y-px text-zinc-500" />}
                  {conversationTitle(c.title, t)}
                </a>
                <span className="hidden shrink-0 gap-0.5 group-focus-within:flex group-hover:flex">
                  <button className={item} onClick={() => setRenaming({ id: c.id, title: conversationTitle(c.title, t) })} aria-label={t('chat.rename')} data-testid="rename">
                    <Pencil aria-hidden className="size-3.5" />
                  </button>
                  <button className={item} onClick={() => void chatActions.pin(c.id, !c.pinned)} aria-label={c.pinned ? t('chat.unpin') : t('chat.pin')} data-testid="pin">
                    {c.pinned ? <PinOff aria-hidden className="size-3.5" /> : <Pin aria-hidden className="size-3.5" />}
                  </button>
                  <button className={item} onClick={() => chatActions.remove(c.id)} aria-label={t('chat.deleteConversation')} data-testid="delete-conversation">
                    <Trash2 aria-hidden className="size-3.5" />
                  </button>
                </span>
              </div>
            )}
          </li>
        ))}
      </ul>
      {pendingDelete && (
        <div role="status" className="m-2 flex items-center justify-between rounded-md bg-zinc-800 px-3 py-2 text-xs text-white" data-testid="undo-toast">
          <span className="truncate">{t('chat.deleted', { title: conversationTitle(pendingDelete.conversation.title, t) })}</span>
          <button onClick={() => chatActions.undoDelete()} className="ml-2 font-semibold underline" data-testid="undo-delete">
            {t('chat.undo')}
          </button>
        </div>
      )}
    </aside>
  )
}

function groupLabel(group: string, t: (key: string) => string): string {
  return ['pinned', 'today', 'yesterday', 'week', 'month'].includes(group) ? t(`conversationGroups.${group}`) : group
}
