import { useTranslation } from 'react-i18next'
import { BarChart3, BookOpen, Cpu, Image, MessageSquare, PanelLeftClose, PanelLeftOpen, Settings, type LucideIcon } from 'lucide-react'
import { useRouter, type RouteName } from './stores/router-store'
import { useLayout } from './stores/layout-store'
import { RunningPullsIndicator } from './features/local-models/running-pulls-indicator'
import { SyncStatusLink } from './features/sync/sync-status-link'
import { useChat } from './features/chat/chat-store'
import { NAV_ORDER, shortcutLabel, type NavRoute } from './components/shortcuts'

type NavKey = 'chat' | 'images' | 'localModels' | 'knowledge' | 'usage' | 'settings'
const LOOK: Record<NavRoute, { key: NavKey; icon: LucideIcon }> = {
  chat: { key: 'chat', icon: MessageSquare },
  images: { key: 'images', icon: Image },
  'local-models': { key: 'localModels', icon: Cpu },
  knowledge: { key: 'knowledge', icon: BookOpen },
  usage: { key: 'usage', icon: BarChart3 },
  settings: { key: 'settings', icon: Settings }
}
/** In NAV_ORDER, the order Ctrl/Cmd+1…6 follow. */
const ITEMS: { route: RouteName; key: NavKey; icon: LucideIcon }[] = NAV_ORDER.map((route) => ({ route, ...LOOK[route] }))

/** The app's navigation; collapses to an icon rail (remembered per window, Ctrl/Cmd+B). */
export function Sidebar({ inDrawer = false }: { inDrawer?: boolean }) {
  const { t } = useTranslation()
  const route = useRouter((s) => s.route)
  // In a drawer (narrow screens) it is always the full list; the drawer itself is what closes.
  const collapsed = useLayout((s) => s.collapsed.nav) && !inDrawer
  const toggle = useLayout((s) => s.toggle)
  // Chat returns to the conversation that was open, not to a new empty one; the
  // "New chat" button is the way to an empty one.
  const lastChat = useChat((s) => (s.currentId && s.conversations.some((c) => c.id === s.currentId) ? s.currentId : undefined))
  const toggleLabel = `${collapsed ? t('polish.expandNav') : t('polish.collapseNav')} (${shortcutLabel('toggle-nav')})`
  return (
    <nav
      aria-label={t('nav.primary')}
      data-testid="app-nav"
      data-collapsed={collapsed || undefined}
      className={`flex shrink-0 flex-col gap-1 border-r border-zinc-200 bg-zinc-50 py-3 dark:border-zinc-800 dark:bg-zinc-900 ${collapsed ? 'w-14 px-2' : 'w-56 px-3'}`}
    >
      <div className={`mb-4 flex items-center gap-2 pt-1 ${collapsed ? 'justify-center' : 'px-2'}`}>
        <div aria-hidden className="grid size-7 shrink-0 place-items-center rounded-lg bg-accent text-sm font-bold text-white">
          S
        </div>
        {!collapsed && (
          <div className="min-w-0">
            <div className="truncate text-sm font-semibold">{t('app.name')}</div>
            <div className="truncate text-xs text-zinc-500 dark:text-zinc-400">{t('app.tagline')}</div>
          </div>
        )}
      </div>
      {ITEMS.map((item) => {
        const active = route.name === item.route
        const label = item.key === 'knowledge' ? t('knowledge.nav') : t(`nav.${item.key}`)
        const Icon = item.icon
        return (
          <a
            key={item.route}
            href={item.route === 'chat' && lastChat ? `#/chat/${lastChat}` : `#/${item.route}`}
            data-testid={`nav-${item.route}`}
            aria-current={active ? 'page' : undefined}
            aria-label={collapsed ? label : undefined}
            title={collapsed ? label : undefined}
            className={`flex items-center gap-3 rounded-md py-2 text-sm transition-colors ${collapsed ? 'justify-center px-0' : 'px-3'} ${
              active
                ? 'bg-white font-medium text-zinc-900 shadow-sm dark:bg-zinc-800 dark:text-white'
                : 'text-zinc-600 hover:bg-zinc-200/60 dark:text-zinc-300 dark:hover:bg-zinc-800/60'
            }`}
          >
            <Icon aria-hidden className="size-4 shrink-0" strokeWidth={1.8} />
            {!collapsed && <span className="truncate">{label}</span>}
          </a>
        )
      })}
      <div className="mt-auto space-y-2">
        <RunningPullsIndicator compact={collapsed} />
        <SyncStatusLink compact={collapsed} />
        {!inDrawer && (
        <button
          type="button"
          onClick={() => toggle('nav')}
          aria-label={toggleLabel}
          title={toggleLabel}
          aria-expanded={!collapsed}
          data-testid="toggle-nav"
          className={`flex w-full items-center gap-3 rounded-md py-2 text-sm text-zinc-500 hover:bg-zinc-200/60 dark:text-zinc-400 dark:hover:bg-zinc-800/60 ${collapsed ? 'justify-center' : 'px-3'}`}
        >
          {collapsed ? <PanelLeftOpen aria-hidden className="size-4" /> : <PanelLeftClose aria-hidden className="size-4" />}
          {!collapsed && <span className="truncate">{t('polish.collapseNav')}</span>}
        </button>
        )}
      </div>
    </nav>
  )
}
