import * as Dialog from '@radix-ui/react-dialog'
import { useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { providerActions, useProviders } from '../providers/providers-store'

/**
 * The unlock dialog of product.md §2 for a missing or wrong key: the custom API key tab
 * (write-only, straight to the OS keychain), the proxy address for OpenAI-type providers,
 * and "confirm and retry".
 */
export function ApiKeyDialog({ providerId, open, onClose, onRetry }: { providerId: string; open: boolean; onClose(): void; onRetry(): void }) {
  const { t } = useTranslation()
  const provider = useProviders((s) => s.providers.find((p) => p.id === providerId))
  const [key, setKey] = useState('')
  // The address already configured is shown (and kept unless changed), not an empty box.
  const configured = provider?.baseURL ?? ''
  // Undefined until the user edits it, so a provider list that arrives after opening still fills it.
  const [proxyDraft, setProxy] = useState<string>()
  const proxy = proxyDraft ?? configured
  const [error, setError] = useState<string>()
  const [busy, setBusy] = useState(false)
  const openAiType = provider?.sdkType === 'openai' || providerId === 'openai'
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    const value = key
    setKey('')
    const keyError = value.trim() ? await providerActions.setKey(providerId, value) : undefined
    const proxyError = !keyError && proxy.trim() && proxy.trim() !== configured ? await providerActions.update(providerId, { baseURL: proxy.trim() }) : undefined
    setBusy(false)
    const failure = keyError ?? proxyError
    if (failure) return setError(failure.message)
    onClose()
    onRetry()
  }
  return (
    <Dialog.Root open={open} onOpenChange={(next) => !next && onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 bg-black/40" />
        <Dialog.Content className="fixed top-1/2 left-1/2 w-[min(92vw,28rem)] -translate-x-1/2 -translate-y-1/2 rounded-xl bg-white p-6 shadow-xl dark:bg-zinc-900" data-testid="api-key-dialog">
          <Dialog.Title className="text-lg font-semibold">{t('unlock.keyTitle', { provider: provider?.name ?? providerId })}</Dialog.Title>
          <Dialog.Description className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{t('unlock.keyDescription')}</Dialog.Description>
          <div role="tablist" className="mt-4 flex gap-1 border-b border-zinc-200 text-sm dark:border-zinc-800">
            <span role="tab" aria-selected className="border-b-2 border-accent px-3 py-1.5 font-medium">
              {t('unlock.customKeyTab')}
            </span>
          </div>
          <form onSubmit={submit} className="mt-4 space-y-3">
            <label className="block text-sm font-medium">
              {t('providers.apiKey')}
              <input
                type="password"
                autoComplete="off"
                autoFocus
                value={key}
                onChange={(e) => setKey(e.target.value)}
                placeholder={provider?.hasKey ? `•••• ${provider.last4 ?? ''}` : 'sk-…'}
                data-testid="api-key-input"
                className="mt-1 w-full rounded-md border border-zinc-300 bg-transparent px-3 py-2 font-mono text-sm dark:border-zinc-700"
              />
            </label>
            {openAiType && (
              <label className="block text-sm font-medium">
                {t('unlock.proxy')}
                <input
                  value={proxy}
                  data-testid="api-key-proxy"
                  onChange={(e) => setProxy(e.target.value)}
                  placeholder={provider?.proxyPlaceholder ?? provider?.defaultBaseURL ?? 'https://api.openai.com/v1'}
                  className="mt-1 w-full rounded-md border border-zinc-300 bg-transparent px-3 py-2 text-sm dark:border-zinc-700"
                />
              </label>
            )}
            {error && (
              <p role="alert" className="text-sm text-red-600">
                {error}
              </p>
            )}
            <div className="flex justify-end gap-2 pt-2">
              <button type="button" onClick={onClose} className="rounded-md px-3 py-2 text-sm">
                {t('unlock.close')}
              </button>
              <button type="submit" disabled={busy || (!key.trim() && proxy.trim() === configured)} data-testid="api-key-confirm" className="rounded-md bg-accent px-4 py-2 text-sm font-medium text-white disabled:opacity-50">
                {t('unlock.confirmRetry')}
              </button>
            </div>
          </form>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  )
}
