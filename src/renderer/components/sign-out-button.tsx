import { useTranslation } from 'react-i18next'
import { signOut } from '../bridge/connect'

/** Browser mode with an access password: ends this browser's session on the server. */
export function SignOutButton() {
  const { t } = useTranslation()
  const onClick = async () => {
    await signOut()
    sessionStorage.removeItem('switchboard.sessionKey')
    location.reload()
  }
  return (
    <button type="button" data-testid="sign-out" onClick={() => void onClick()} className="rounded-md border border-zinc-300 px-3 py-1 text-sm hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800">
      {t('security.signOut')}
    </button>
  )
}
