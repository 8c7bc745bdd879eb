import { useTranslation } from 'react-i18next'
import { Page } from '../../components/page'

export function LocalModelsPage() {
  const { t } = useTranslation()
  return (
    <Page title={t('pages.localTitle')} testId="page-local-models">
      <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('pages.localEmpty')}</p>
    </Page>
  )
}
