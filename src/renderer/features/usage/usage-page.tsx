import { useTranslation } from 'react-i18next'
import { Page } from '../../components/page'
import { UsageSection } from './usage-section'

/** Usage and cost: a page of its own in the navigation (Ctrl/Cmd+6). */
export function UsagePage() {
  const { t } = useTranslation()
  return (
    <Page title={t('usage.title')} testId="page-usage">
      <div className="max-w-4xl">
        <UsageSection />
      </div>
    </Page>
  )
}
