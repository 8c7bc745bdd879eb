import { useTranslation } from 'react-i18next'
import { Page } from '../../components/page'

export function ChatPage() {
  const { t } = useTranslation()
  return (
    <Page title={t('pages.chatTitle')} testId="page-chat">
      <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('pages.chatEmpty')}</p>
    </Page>
  )
}
