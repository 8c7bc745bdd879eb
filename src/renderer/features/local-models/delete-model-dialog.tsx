import * as Dialog from '@radix-ui/react-dialog'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useLocalModels } from './local-models-store'

/** Delete with confirmation: a Radix dialog (focus trapped, Escape closes). */
export function DeleteModelDialog({ name }: { name: string }) {
  const { t } = useTranslation()
  const remove = useLocalModels((s) => s.remove)
  const [open, setOpen] = useState(false)
  const [busy, setBusy] = useState(false)
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger asChild>
        <button data-testid={`delete-${name}`} className="text-xs text-red-600 hover:underline dark:text-red-400">
          {t('local.delete')}
        </button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 bg-black/40" />
        <Dialog.Content
          data-testid="delete-dialog"
          className="fixed top-1/2 left-1/2 w-[26rem] max-w-[90vw] -translate-x-1/2 -translate-y-1/2 rounded-xl bg-white p-5 shadow-xl dark:bg-zinc-900"
        >
          <Dialog.Title className="text-base font-semibold">{t('local.deleteTitle', { name })}</Dialog.Title>
          <Dialog.Description className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">{t('local.deleteBody')}</Dialog.Description>
          <div className="mt-5 flex justify-end gap-2">
            <Dialog.Close asChild>
              <button className="rounded-md px-3 py-1.5 text-sm text-zinc-700 dark:text-zinc-300">{t('local.cancel')}</button>
            </Dialog.Close>
            <button
              data-testid="confirm-delete"
              disabled={busy}
              onClick={() => {
                setBusy(true)
                void remove(name).then((ok) => {
                  setBusy(false)
                  if (ok) setOpen(false)
                })
              }}
              className="rounded-md bg-red-600 px-3 py-1.5 text-sm text-white disabled:opacity-60"
            >
              {busy ? t('local.deleting') : t('local.delete')}
            </button>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  )
}
