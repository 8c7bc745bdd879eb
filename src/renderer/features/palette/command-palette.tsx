import * as Dialog from '@radix-ui/react-dialog'
import { useEffect, useMemo, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useMessageSearch } from '../search/use-message-search'
import { bridge, useApp } from '../../stores/app-store'
import { useRouter } from '../../stores/router-store'
import { chatActions, useChat } from '../chat/chat-store'
import { paletteItems, type PaletteItem } from './palette-items'
import { matchesShortcut } from '../../components/shortcuts'

/** Settings sections the palette can open (scrolled into view by their test ids). */
const SETTINGS_SECTIONS = [
  { key: 'providers', testId: 'providers-section' },
  { key: 'voice', testId: 'voice-settings' },
  { key: 'data', testId: 'data-section' },
  { key: 'tools', testId: 'tools-settings' },
  { key: 'sync', testId: 'sync-section' }
] as const

interface Filters {
  agentId: string
  modelId: string
  from: string
  to: string
}
const NO_FILTERS: Filters = { agentId: '', modelId: '', from: '', to: '' }

/**
 * Ctrl/Cmd+K: one list of actions, settings pages, agents, conversations and the messages the
 * search finds (with agent, model and date filters), driven by the keyboard: arrows move, Enter
 * opens, Escape closes.
 */
export function CommandPalette() {
  const { t } = useTranslation()
  const [open, setOpen] = useState(false)
  const [query, setQuery] = useState('')
  const [active, setActive] = useState(0)
  const [filters, setFilters] = useState<Filters>(NO_FILTERS)
  const [showFilters, setShowFilters] = useState(false)
  const [models, setModels] = useState<string[]>([])
  const navigate = useRouter((s) => s.navigate)
  const agents = useChat((s) => s.agents)
  const conversations = useChat((s) => s.conversations)
  const theme = useApp((s) => s.theme)
  const setTheme = useApp((s) => s.setTheme)
  const hits = useMessageSearch(query, { ...filters, limit: 20 }, 120)
  const list = useRef<HTMLUListElement>(null)

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (matchesShortcut(event, 'command-palette')) {
        event.preventDefault()
        setOpen((o) => !o)
      }
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [])
  useEffect(() => {
    if (!open) return
    setQuery('')
    setActive(0)
    // The models the filter offers: those that have written something (the usage log knows them).
    void bridge()
      .call('data.usage.summary', { group: 'model' })
      .then((r) => r.ok && setModels([...new Set(r.value.map((row) => row.key).filter(Boolean))].sort()))
  }, [open])

  const items = useMemo(() => {
    const close = () => setOpen(false)
    const settings = (testId?: string) => {
      navigate('/settings')
      if (testId) setTimeout(() => document.querySelector(`[data-testid="${testId}"]`)?.scrollIntoView({ block: 'start' }), 50)
    }
    const actions: PaletteItem[] = [
      { id: 'action:new-chat', kind: 'action', label: t('palette.actions.newChat'), run: () => navigate('/chat') },
      { id: 'action:new-agent', kind: 'action', label: t('palette.actions.newAgent'), run: () => void chatActions.createAgent(t('agent.newAgentName')).then(() => navigate('/chat')) },
      {
        id: 'action:backup',
        kind: 'action',
        label: t('palette.actions.backUp'),
        run: () => void bridge().call('data.backups.create', {}).then(() => settings('data-section'))
      },
      { id: 'action:export', kind: 'action', label: t('palette.actions.export'), run: () => settings('data-section') },
      {
        id: 'action:theme',
        kind: 'action',
        label: t('palette.actions.theme'),
        run: () => setTheme(theme === 'dark' ? 'light' : theme === 'light' ? 'system' : 'dark')
      }
    ]
    const pages: PaletteItem[] = [
      { id: 'page:chat', kind: 'page', label: t('nav.chat'), run: () => navigate('/chat') },
      { id: 'page:images', kind: 'page', label: t('nav.images'), run: () => navigate('/images') },
      { id: 'page:local-models', kind: 'page', label: t('nav.localModels'), run: () => navigate('/local-models') },
      { id: 'page:knowledge', kind: 'page', label: t('knowledge.nav'), run: () => navigate('/knowledge') },
      { id: 'page:usage', kind: 'page', label: t('usage.title'), run: () => navigate('/usage') },
      { id: 'page:settings', kind: 'page', label: t('nav.settings'), run: () => settings() },
      ...SETTINGS_SECTIONS.map<PaletteItem>((s) => ({ id: `page:settings-${s.key}`, kind: 'page', label: t(`palette.sections.${s.key}`), run: () => settings(s.testId) }))
    ]
    return paletteItems({
      query,
      actions,
      pages,
      agents,
      conversations,
      hits,
      untitled: t('dataPage.untitled'),
      openAgent: (id) => {
        chatActions.selectAgent(id)
        navigate('/chat')
      },
      openConversation: (id) => navigate(`/chat/${id}`),
      openMessage: (hit) => chatActions.showMessage(hit.conversationId, hit.messageId)
    }).map((item) => ({
      ...item,
      run: () => {
        close()
        item.run()
      }
    }))
  }, [query, agents, conversations, hits, navigate, t, theme, setTheme])

  useEffect(() => setActive((a) => Math.min(a, Math.max(0, items.length - 1))), [items.length])
  useEffect(() => {
    list.current?.querySelector(`[data-index="${active}"]`)?.scrollIntoView({ block: 'nearest' })
  }, [active])

  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key === 'ArrowDown') {
      event.preventDefault()
      setActive((a) => (items.length ? (a + 1) % items.length : 0))
    } else if (event.key === 'ArrowUp') {
      event.preventDefault()
      setActive((a) => (items.length ? (a - 1 + items.length) % items.length : 0))
    } else if (event.key === 'Escape') {
      // Closed here too: a page's own Escape handler (the chat's "Esc stops") must not keep it open.
      event.preventDefault()
      setOpen(false)
    } else if (event.key === 'Enter' && !event.nativeEvent.isComposing) {
      event.preventDefault()
      items[active]?.run()
    }
  }

  const field = 'rounded-md border border-zinc-300 bg-transparent px-2 py-1 text-xs dark:border-zinc-700'
  let lastKind = ''
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/30" />
        <Dialog.Content
          className="fixed top-[12vh] left-1/2 z-50 flex max-h-[70vh] w-[min(94vw,40rem)] -translate-x-1/2 flex-col overflow-hidden rounded-xl bg-white shadow-2xl dark:bg-zinc-900"
          data-testid="command-palette"
          aria-describedby={undefined}
        >
          <Dialog.Title className="sr-only">{t('palette.title')}</Dialog.Title>
          <div className="flex items-center gap-2 border-b border-zinc-200 px-3 dark:border-zinc-800">
            <input
              autoFocus
              value={query}
              onChange={(e) => {
                setQuery(e.target.value)
                setActive(0)
              }}
              onKeyDown={onKeyDown}
              placeholder={t('palette.placeholder')}
              role="combobox"
              aria-expanded
              aria-controls="palette-list"
              aria-activedescendant={items[active] ? `palette-${active}` : undefined}
              className="min-w-0 flex-1 bg-transparent py-3 text-sm outline-none"
              data-testid="palette-input"
            />
            <button onClick={() => setShowFilters((s) => !s)} aria-expanded={showFilters} className="text-xs text-zinc-500 underline" data-testid="palette-filters-toggle">
              {t('palette.filters')}
            </button>
          </div>
          {showFilters && (
            <div className="flex flex-wrap items-center gap-2 border-b border-zinc-200 px-3 py-2 text-xs dark:border-zinc-800" data-testid="palette-filters">
              <select value={filters.agentId} onChange={(e) => setFilters({ ...filters, agentId: e.target.value })} className={field} aria-label={t('palette.agent')} data-testid="palette-filter-agent">
                <option value="">{t('palette.anyAgent')}</option>
                {agents.map((a) => (
                  <option key={a.id} value={a.id}>
                    {a.name}
                  </option>
                ))}
              </select>
              <select value={filters.modelId} onChange={(e) => setFilters({ ...filters, modelId: e.target.value })} className={field} aria-label={t('palette.model')} data-testid="palette-filter-model">
                <option value="">{t('palette.anyModel')}</option>
                {models.map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </select>
              <input type="date" value={filters.from} onChange={(e) => setFilters({ ...filters, from: e.target.value })} className={field} aria-label={t('usage.from')} data-testid="palette-filter-from" />
              <input type="date" value={filters.to} onChange={(e) => setFilters({ ...filters, to: e.target.value })} className={field} aria-label={t('usage.to')} data-testid="palette-filter-to" />
              <button onClick={() => setFilters(NO_FILTERS)} className="underline">
                {t('palette.clearFilters')}
              </button>
            </div>
          )}
          <ul ref={list} id="palette-list" role="listbox" className="min-h-0 flex-1 overflow-y-auto p-1" data-testid="palette-list">
            {items.map((item, index) => {
              const heading = item.kind !== lastKind ? t(`palette.kinds.${item.kind}`) : undefined
              lastKind = item.kind
              return (
                <li key={item.id} role="presentation">
                  {heading && <div className="px-2 pt-2 pb-1 text-[11px] font-semibold text-zinc-500 uppercase">{heading}</div>}
                  {/* Keys are handled by the input (aria-activedescendant listbox pattern); a click picks too. */}
                  {/* eslint-disable-next-line jsx-a11y/click-events-have-key-events, jsx-a11y/interactive-supports-focus */}
                  <div
                    id={`palette-${index}`}
                    role="option"
                    aria-selected={index === active}
                    data-index={index}
                    data-kind={item.kind}
                    data-testid="palette-item"
                    onMouseMove={() => setActive(index)}
                    onClick={() => item.run()}
                    className={`cursor-pointer rounded-md px-2 py-1.5 text-sm ${index === active ? 'bg-accent text-white' : ''}`}
                  >
                    <div className="truncate">{item.label}</div>
                    {item.detail && <div className={`truncate text-xs ${index === active ? 'text-white/80' : 'text-zinc-500'}`}>{item.detail}</div>}
                  </div>
                </li>
              )
            })}
            {query.trim() && items.length === 0 && hits !== undefined && (
              <li className="px-2 py-3 text-sm text-zinc-500" data-testid="palette-empty">
                {t('search.noResults')}
              </li>
            )}
          </ul>
          <div className="border-t border-zinc-200 px-3 py-1.5 text-[11px] text-zinc-500 dark:border-zinc-800">{t('palette.hint')}</div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  )
}
