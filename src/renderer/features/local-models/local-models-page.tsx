import { useEffect, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { Page } from '../../components/page'
import { BuiltinModels } from './builtin-models'
import { InstalledModelsTable } from './installed-models-table'
import { ModelLibrarySection } from './model-library-section'
import { useLocalModels } from './local-models-store'
import { PullPanel } from './pull-panel'
import { onPullFinished, usePulls } from './pulls-store'
import { RunningModelsTable } from './running-models-table'
import { ServerStatusList } from './server-status-list'
import { RecommendedModels } from './recommended-models'

/** While the page is open the servers are checked again this often, and on window focus. */
const RECHECK_MS = 30_000

function Section({ title, children, action, testId }: { title: string; children: ReactNode; action?: ReactNode; testId?: string }) {
  return (
    <section className="space-y-3" data-testid={testId}>
      <div className="flex items-center">
        <h2 className="text-sm font-semibold tracking-wide text-zinc-500 uppercase">{title}</h2>
        <div className="ml-auto">{action}</div>
      </div>
      {children}
    </section>
  )
}

export function LocalModelsPage() {
  const { t } = useTranslation()
  const { refresh, checking, loaded, ollamaError, actionError, servers } = useLocalModels()
  const ollama = servers.find((s) => s.kind === 'ollama')

  useEffect(() => {
    void refresh()
    void usePulls.getState().sync()
    const timer = setInterval(() => void refresh(), RECHECK_MS)
    const onFocus = () => void refresh()
    window.addEventListener('focus', onFocus)
    const stop = onPullFinished((snap) => snap.phase === 'success' && void refresh())
    return () => {
      clearInterval(timer)
      window.removeEventListener('focus', onFocus)
      stop()
    }
  }, [refresh])

  return (
    <Page title={t('pages.localTitle')} testId="page-local-models">
      <div className="max-w-6xl space-y-8" data-loaded={loaded}>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('pages.localEmpty')}</p>
        <Section title={t('local.builtin.title')}>
          <BuiltinModels />
        </Section>
        <Section
          title={t('local.servers')}
          action={
            <button data-testid="local-recheck" disabled={checking} onClick={() => void refresh()} className="text-xs text-accent hover:underline disabled:opacity-50">
              {t('local.checkAgain')}
            </button>
          }
        >
          <ServerStatusList />
          <p className="text-xs text-zinc-500">{t('local.usableNoKey')}</p>
        </Section>
        {actionError && (
          <p role="alert" className="text-sm text-red-700 dark:text-red-400">
            {actionError.message}
          </p>
        )}
        <Section title={t('recommended.title')}>
          <p className="text-xs text-zinc-500">{t('recommended.intro')}</p>
          {/* Downloaded here, a model waits on the chat's first screen with the others on disk; the page does not jump away on its own. */}
          <RecommendedModels autoOpen={false} onChat={() => void (location.hash = '#/chat')} />
        </Section>
        <Section title={t('library.title')}>
          <ModelLibrarySection />
        </Section>
        <Section title={t('local.pullTitle')}>
          <PullPanel />
        </Section>
        <Section title={t('local.installed')}>
          {ollamaError && ollama && !ollama.running ? (
            <p className="text-sm text-amber-700 dark:text-amber-400" data-testid="ollama-down">
              {t('local.ollamaDown', { url: ollama.baseUrl })}
            </p>
          ) : ollamaError ? (
            <p className="text-sm text-red-700 dark:text-red-400">{ollamaError.message}</p>
          ) : (
            <InstalledModelsTable />
          )}
        </Section>
        <Section title={t('local.runningTitle')} testId="ollama-running">
          <RunningModelsTable />
        </Section>
      </div>
    </Page>
  )
}
