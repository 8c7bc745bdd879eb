import * as Dialog from '@radix-ui/react-dialog'
import { useEffect, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { useApp } from '../stores/app-store'

/** The server's wait before it looks at another password from this address, if any. */
const retryAfterOf = (detail: unknown): number | undefined => {
  const ms = (detail as { retryAfterMs?: unknown } | undefined)?.retryAfterMs
  return typeof ms === 'number' && ms > 0 ? ms : undefined
}

/** Browser mode with an access password: asked once per browser session. */
export function UnlockDialog() {
  const { t } = useTranslation()
  const unlock = useApp((s) => s.unlock)
  const error = useApp((s) => s.unlockError)
  const [password, setPassword] = useState('')
  const [busy, setBusy] = useState(false)
  const [waitUntil, setWaitUntil] = useState(0)
  const [clock, setClock] = useState(() => Date.now())
  useEffect(() => {
    const ms = retryAfterOf(error?.detail)
    setWaitUntil(ms ? Date.now() + ms : 0)
    setClock(Date.now())
  }, [error])
  const remaining = Math.max(0, Math.ceil((waitUntil - clock) / 1000))
  useEffect(() => {
    if (remaining <= 0) return
    const timer = setInterval(() => setClock(Date.now()), 250)
    return () => clearInterval(timer)
  }, [remaining])
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    if (remaining > 0) return
    setBusy(true)
    await unlock(password)
    setBusy(false)
  }
  return (
    <Dialog.Root open>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 bg-black/40" />
        <Dialog.Content
          className="fixed top-1/2 left-1/2 w-[min(92vw,24rem)] -translate-x-1/2 -translate-y-1/2 rounded-xl bg-white p-6 shadow-xl dark:bg-zinc-900"
          onEscapeKeyDown={(e) => e.preventDefault()}
          onPointerDownOutside={(e) => e.preventDefault()}
        >
          <Dialog.Title className="text-lg font-semibold">{t('unlock.title')}</Dialog.Title>
          <Dialog.Description className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{t('unlock.description')}</Dialog.Description>
          <form onSubmit={submit} className="mt-4 space-y-3">
            <label className="block text-sm font-medium">
              {t('unlock.password')}
              <input
                type="password"
                autoFocus
                autoComplete="current-password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
                data-testid="unlock-password"
                className="mt-1 w-full rounded-md border border-zinc-300 bg-transparent px-3 py-2 dark:border-zinc-700"
              />
            </label>
            {error && (
              <p role="alert" data-testid="unlock-error" className="text-sm text-red-600 dark:text-red-400">
                {error.errorType === 'InvalidAccessCode' ? t('errors.InvalidAccessCode') : error.errorType === 'TooManyAttempts' ? null : error.message}
              </p>
            )}
            {remaining > 0 && (
              <p role="status" data-testid="unlock-wait" className="text-sm text-amber-700 dark:text-amber-400">
                {t('security.tooManyAttempts', { seconds: remaining })}
              </p>
            )}
            <button
              type="submit"
              disabled={busy || remaining > 0}
              className="w-full rounded-md bg-accent px-4 py-2 text-sm font-medium text-white hover:bg-accent-strong disabled:opacity-60"
            >
              {busy ? t('unlock.checking') : t('unlock.submit')}
            </button>
          </form>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  )
}
