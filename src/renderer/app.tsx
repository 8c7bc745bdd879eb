import { lazy, Suspense, useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { ErrorBoundary } from './components/error-boundary'
import { NotFoundPage } from './components/error-pages'
import { Sidebar } from './sidebar'
import { ShortcutsSheet } from './components/shortcuts-sheet'
import { NAV_SHORTCUTS, matchesShortcut, type ShortcutId } from './components/shortcuts'
import { StartupView } from './components/startup-view'
import { UnlockDialog } from './components/unlock-dialog'
import { ChatPage } from './features/chat/chat-page'
import { onMenuCommand, useApp } from './stores/app-store'
import { useRouter, type Route } from './stores/router-store'
import { useLayout } from './stores/layout-store'
import { chatActions } from './features/chat/chat-store'
import { providerActions } from './features/providers/providers-store'
import { CommandPalette } from './features/palette/command-palette'
import { refreshAfterSync } from './sync-refresh'
import { MobileBar } from './components/mobile-bar'
import { Drawer } from './components/drawer'

// Chat is the page the app opens on; every other page loads its feature the first time it is
// visited, so the code the window needs to start stays small (the startup bench measures it).
const ImagesPage = lazy(() => import('./features/images/images-page').then((m) => ({ default: m.ImagesPage })))
const LocalModelsPage = lazy(() => import('./features/local-models/local-models-page').then((m) => ({ default: m.LocalModelsPage })))
const KnowledgePage = lazy(() => import('./features/knowledge/knowledge-page').then((m) => ({ default: m.KnowledgePage })))
const UsagePage = lazy(() => import('./features/usage/usage-page').then((m) => ({ default: m.UsagePage })))
const SettingsPage = lazy(() => import('./features/settings/settings-page').then((m) => ({ default: m.SettingsPage })))

/** While a page's code loads: a quiet line in the page's place, announced to screen readers. */
function PageLoading() {
  const { t } = useTranslation()
  return (
    <div role="status" aria-live="polite" data-testid="page-loading" className="p-6 text-sm text-zinc-500">
      {t('page.loading')}
    </div>
  )
}

function RouteView({ route }: { route: Route }) {
  switch (route.name) {
    case 'chat':
      return <ChatPage />
    case 'images':
      return <ImagesPage />
    case 'local-models':
      return <LocalModelsPage />
    case 'knowledge':
      return <KnowledgePage />
    case 'usage':
      return <UsagePage />
    case 'settings':
      return <SettingsPage />
    default:
      return <NotFoundPage />
  }
}

export function App() {
  const { t } = useTranslation()
  const init = useApp((s) => s.init)
  const locked = useApp((s) => s.locked)
  const connection = useApp((s) => s.connection)
  const retryInit = useApp((s) => s.retryInit)
  const route = useRouter((s) => s.route)
  const navigate = useRouter((s) => s.navigate)

  useEffect(() => onMenuCommand((command) => command === 'new-chat' && navigate('/chat')), [navigate])
  const ready = init.phase === 'ready'
  useEffect(() => {
    if (!ready) return
    void chatActions.load()
    void providerActions.load()
  }, [ready])
  useEffect(() => (ready ? refreshAfterSync() : undefined), [ready])
  const [sheetOpen, setSheetOpen] = useState(false)
  const toggle = useLayout((s) => s.toggle)
  const narrow = useLayout((s) => s.narrow)
  useEffect(() => {
    // The app-wide shortcuts of SHORTCUTS (the sheet lists the same entries); the chat and
    // images features handle their own (send, stop, generate) with the same list.
    const onKey = (event: KeyboardEvent) => {
      if (matchesShortcut(event, 'shortcuts')) {
        event.preventDefault()
        setSheetOpen((open) => !open)
        return
      }
      if (matchesShortcut(event, 'toggle-nav') || matchesShortcut(event, 'toggle-conversations')) {
        event.preventDefault()
        toggle(event.shiftKey ? 'conversations' : 'nav')
        return
      }
      if (matchesShortcut(event, 'new-chat')) {
        // New chat: the empty chat page; the composer takes the focus.
        event.preventDefault()
        navigate('/chat')
        setTimeout(() => document.querySelector<HTMLTextAreaElement>('[data-testid="composer-input"]')?.focus(), 0)
        return
      }
      for (const [id, target] of Object.entries(NAV_SHORTCUTS)) {
        if (target && matchesShortcut(event, id as ShortcutId)) {
          event.preventDefault()
          navigate(target)
          return
        }
      }
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [navigate, toggle])

  if (locked) return <UnlockDialog />
  if (init.phase !== 'ready') return <StartupView state={init} onRetry={() => void retryInit()} />
  return (
    // On a narrow screen (a phone, a tablet): one column under a bar whose buttons open the drawers.
    <div className={narrow ? 'flex h-full flex-col' : 'flex h-full'} data-layout={narrow ? 'narrow' : 'wide'}>
      {narrow ? (
        <>
          <MobileBar chat={route.name === 'chat'} />
          <Drawer panel="nav" label={t('nav.primary')}>
            <Sidebar inDrawer />
          </Drawer>
        </>
      ) : (
        <Sidebar />
      )}
      <CommandPalette />
      <main className="relative flex min-h-0 min-w-0 flex-1 flex-col" data-route={route.name}>
        {connection === 'reconnecting' && (
          // Above the page, pushing it down (the page shrinks, so the composer stays on screen).
          <div
            role="status"
            data-testid="reconnecting-banner"
            className="shrink-0 bg-amber-100 px-4 py-1.5 text-center text-xs text-amber-900 shadow-sm dark:bg-amber-950/95 dark:text-amber-200"
          >
            {t('connection.reconnecting')}
          </div>
        )}
        <div className="min-h-0 flex-1">
          <ErrorBoundary resetKey={route.name}>
            <Suspense fallback={<PageLoading />}>
              <RouteView route={route} />
            </Suspense>
          </ErrorBoundary>
        </div>
      </main>
      <ShortcutsSheet open={sheetOpen} onClose={() => setSheetOpen(false)} />
    </div>
  )
}
