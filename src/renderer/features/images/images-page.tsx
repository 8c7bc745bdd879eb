import { useTranslation } from 'react-i18next'
import { Page } from '../../components/page'

export function ImagesPage() {
  const { t } = useTranslation()
  return (
    <Page title={t('pages.imagesTitle')} testId="page-images">
      <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('pages.imagesEmpty')}</p>
    </Page>
  )
}
