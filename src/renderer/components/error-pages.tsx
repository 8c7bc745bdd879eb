import { useTranslation } from 'react-i18next'

const button = 'rounded-md px-4 py-2 text-sm font-medium'

export function ErrorPage({ detail, onHome }: { detail?: string; onHome?(): void }) {
  const { t } = useTranslation()
  return (
    <section className="grid h-full place-items-center p-8" data-testid="error-page">
      <div className="max-w-md space-y-3 text-center">
        <h1 className="text-xl font-semibold">{t('errors.pageTitle')}</h1>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('errors.pageBody')}</p>
        {detail && <pre className="overflow-auto rounded bg-zinc-100 p-2 text-left text-xs dark:bg-zinc-900">{detail}</pre>}
        <div className="flex justify-center gap-2">
          <a href="#/chat" onClick={onHome} className={`${button} bg-accent text-white hover:bg-accent-strong`}>
            {t('errors.backHome')}
          </a>
          <button onClick={() => location.reload()} className={`${button} border border-zinc-300 dark:border-zinc-700`}>
            {t('errors.reload')}
          </button>
        </div>
      </div>
    </section>
  )
}

export function NotFoundPage() {
  const { t } = useTranslation()
  return (
    <section className="grid h-full place-items-center p-8" data-testid="not-found">
      <div className="max-w-md space-y-3 text-center">
        <p className="text-5xl font-bold text-zinc-300 dark:text-zinc-700">404</p>
        <h1 className="text-xl font-semibold">{t('errors.notFoundTitle')}</h1>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('errors.notFoundBody')}</p>
        <a href="#/chat" className={`${button} inline-block bg-accent text-white hover:bg-accent-strong`}>
          {t('errors.backHome')}
        </a>
      </div>
    </section>
  )
}
