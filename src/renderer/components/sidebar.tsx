import { useTranslation } from 'react-i18next'
import { useRouter, type RouteName } from '../stores/router-store'
import { RunningPullsIndicator } from '../features/local-models/running-pulls-indicator'
import { useChat } from '../features/chat/chat-store'

const ITEMS: { route: RouteName; key: 'chat' | 'images' | 'localModels' | 'knowledge' | 'settings'; icon: string }[] = [
  { route: 'chat', key: 'chat', icon: 'M4 5h16v11H8l-4 4z' },
  { route: 'images', key: 'images', icon: 'M4 5h16v14H4zM4 15l5-5 4 4 3-3 4 4' },
  { route: 'local-models', key: 'localModels', icon: 'M5 4h14v6H5zM5 14h14v6H5zM8 7h.01M8 17h.01' },
  { route: 'knowledge', key: 'knowledge', icon: 'M4 4h6a2 2 0 0 1 2 2v14a2 2 0 0 0-2-2H4zM20 4h-6a2 2 0 0 0-2 2v14a2 2 0 0 1 2-2h6z' },
  { route: 'settings', key: 'settings', icon: 'M12 8a4 4 0 1 0 0 8 4 4 0 0 0 0-8zM12 2v3M12 19v3M2 12h3M19 12h3' }
]

export function Sidebar() {
  const { t } = useTranslation()
  const route = useRouter((s) => s.route)
  // Chat returns to the conversation that was open (issue 16), not to a new empty one; the
  // "New chat" button is the way to an empty one.
  const lastChat = useChat((s) => (s.currentId && s.conversations.some((c) => c.id === s.currentId) ? s.currentId : undefined))
  return (
    <nav aria-label={t('nav.primary')} className="flex w-56 shrink-0 flex-col gap-1 border-r border-zinc-200 bg-zinc-50 p-3 dark:border-zinc-800 dark:bg-zinc-900">
      <div className="mb-4 flex items-center gap-2 px-2 pt-1">
        <div aria-hidden className="grid size-7 place-items-center rounded-lg bg-accent text-sm font-bold text-white">S</div>
        <div>
          <div className="text-sm font-semibold">{t('app.name')}</div>
          <div className="text-xs text-zinc-500 dark:text-zinc-400">{t('app.tagline')}</div>
        </div>
      </div>
      {ITEMS.map((item) => {
        const active = route.name === item.route
        return (
          <a
            key={item.route}
            href={item.route === 'chat' && lastChat ? `#/chat/${lastChat}` : `#/${item.route}`}
            data-testid={`nav-${item.route}`}
            aria-current={active ? 'page' : undefined}
            className={`flex items-center gap-3 rounded-md px-3 py-2 text-sm transition-colors ${
              active
                ? 'bg-white font-medium text-zinc-900 shadow-sm dark:bg-zinc-800 dark:text-white'
                : 'text-zinc-600 hover:bg-zinc-200/60 dark:text-zinc-300 dark:hover:bg-zinc-800/60'
            }`}
          >
            <svg aria-hidden viewBox="0 0 24 24" className="size-4" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round">
              <path d={item.icon} />
            </svg>
            {item.key === 'knowledge' ? t('knowledge.nav') : t(`nav.${item.key}`)}
          </a>
        )
      })}
      <div className="mt-auto">
        <RunningPullsIndicator />
      </div>
    </nav>
  )
}
