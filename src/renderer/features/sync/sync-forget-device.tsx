import * as Dialog from '@radix-ui/react-dialog'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { SyncDevice } from '../../../shared/bridge/procedures/sync'
import { bridge } from '../../stores/app-store'
import { problemOf, SyncProblem, type Problem } from './sync-problem'
import { buttonClass } from './sync-setup-form'

/**
 * Forget another device gone for good (a lost or wiped laptop): the others stop keeping
 * deletions for it and it leaves the list, and what it left in the store goes with the next
 * snapshot (decision 98); if it ever syncs again it is asked to join again.
 */
export function ForgetDevice({ device, disabled, onForgotten }: { device: SyncDevice; disabled: boolean; onForgotten(devices: SyncDevice[]): void }) {
  const { t } = useTranslation()
  const [open, setOpen] = useState(false)
  const [busy, setBusy] = useState(false)
  const [problem, setProblem] = useState<Problem>()
  const forget = async () => {
    setBusy(true)
    setProblem(undefined)
    const r = await bridge().call('sync.forgetDevice', { deviceId: device.id })
    setBusy(false)
    if (!r.ok) return setProblem(problemOf(r.error))
    onForgotten(r.value)
    setOpen(false)
  }
  return (
    <Dialog.Root open={open} onOpenChange={(next) => (setOpen(next), setProblem(undefined))}>
      <Dialog.Trigger asChild>
        <button type="button" className="shrink-0 rounded px-1.5 text-xs text-zinc-600 underline-offset-2 hover:underline disabled:opacity-50 dark:text-zinc-300" disabled={disabled} data-testid="sync-forget-device">
          {t('sync.forget')}
          <span className="sr-only"> {device.name}</span>
        </button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
        <Dialog.Content className="fixed top-1/2 left-1/2 z-50 w-[min(28rem,calc(100vw-2rem))] -translate-x-1/2 -translate-y-1/2 space-y-3 rounded-lg border border-zinc-200 bg-white p-5 shadow-xl dark:border-zinc-800 dark:bg-zinc-900" data-testid="sync-forget-dialog">
          <Dialog.Title className="text-base font-semibold">{t('sync.forgetTitle', { name: device.name })}</Dialog.Title>
          <Dialog.Description className="text-sm text-zinc-600 dark:text-zinc-300">{t('sync.forgetBody')}</Dialog.Description>
          {problem && <SyncProblem problem={problem} testId="sync-forget-error" />}
          <div className="flex justify-end gap-2">
            <Dialog.Close asChild>
              <button type="button" className={buttonClass}>
                {t('sync.cancel')}
              </button>
            </Dialog.Close>
            <button type="button" className={`${buttonClass} text-red-700 dark:text-red-400`} disabled={busy} onClick={() => void forget()} data-testid="sync-forget-confirm">
              {t('sync.forgetConfirm')}
            </button>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  )
}
