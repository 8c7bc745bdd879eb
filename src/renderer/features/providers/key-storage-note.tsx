import { useTranslation } from 'react-i18next'
import { useProviders } from './providers-store'

/**
 * Where the chat says why providers have no key: on a machine without a keychain (a headless
 * `serve`), keys typed in Settings last only until the server restarts. Shown where the missing
 * models are noticed (the empty chat, the model picker), not only in Settings.
 */
export function KeyStorageNote() {
  const { t } = useTranslation()
  const provider = useProviders((s) => s.providers.find((p) => !p.keyPersistent))
  if (!provider) return null
  return (
    <p role="note" data-testid="key-storage-note" title={provider.keyMemoryReason} className="text-xs text-amber-700 dark:text-amber-400">
      {t('providers.keysNotKept')}
    </p>
  )
}
