import { useTranslation } from 'react-i18next'
import { Menu, MessagesSquare, SquarePen } from 'lucide-react'
import { useLayout } from '../stores/layout-store'

/** The top bar of the one-column layout: the menu (the app's pages) and, in the chat, the conversations. */
export function MobileBar({ chat }: { chat: boolean }) {
  const { t } = useTranslation()
  const openDrawer = useLayout((s) => s.openDrawer)
  const button = 'grid size-10 place-items-center rounded-md text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800'
  return (
    <div className="flex h-12 shrink-0 items-center gap-1 border-b border-zinc-200 px-1 dark:border-zinc-800" data-testid="mobile-bar">
      <button type="button" className={button} onClick={() => openDrawer('nav')} aria-label={t('polish.openNav')} title={t('polish.openNav')} data-testid="open-nav-drawer">
        <Menu aria-hidden className="size-5" />
      </button>
      <span className="min-w-0 flex-1 truncate text-sm font-semibold">{t('app.name')}</span>
      {chat && (
        <>
          <a href="#/chat" className={button} aria-label={t('chat.newChat')} title={t('chat.newChat')} data-testid="mobile-new-chat">
            <SquarePen aria-hidden className="size-5" />
          </a>
          <button type="button" className={button} onClick={() => openDrawer('conversations')} aria-label={t('polish.openConversations')} title={t('polish.openConversations')} data-testid="open-conversations-drawer">
            <MessagesSquare aria-hidden className="size-5" />
          </button>
        </>
      )}
    </div>
  )
}
