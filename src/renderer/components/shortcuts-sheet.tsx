import * as Dialog from '@radix-ui/react-dialog'
import { useTranslation } from 'react-i18next'
import { X } from 'lucide-react'
import { SHORTCUTS, shortcutKeys, type ShortcutGroup } from './shortcuts'

const GROUPS: ShortcutGroup[] = ['general', 'navigation', 'chat', 'images']

/** Ctrl/Cmd+/ : every shortcut of SHORTCUTS, by group (the same list the key handlers use). */
export function ShortcutsSheet({ open, onClose }: { open: boolean; onClose(): void }) {
  const { t } = useTranslation()
  return (
    <Dialog.Root open={open} onOpenChange={(next) => !next && onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/50" />
        <Dialog.Content
          data-testid="shortcuts-sheet"
          className="fixed top-1/2 left-1/2 z-50 max-h-[85vh] w-[min(40rem,92vw)] -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-xl border border-zinc-200 bg-white p-6 shadow-xl dark:border-zinc-800 dark:bg-zinc-900"
        >
          <div className="flex items-start justify-between gap-4">
            <Dialog.Title className="text-lg font-semibold">{t('polish.shortcutsTitle')}</Dialog.Title>
            <Dialog.Close aria-label={t('polish.close')} className="rounded-md p-1 text-zinc-500 hover:bg-zinc-100 dark:hover:bg-zinc-800">
              <X aria-hidden className="size-4" />
            </Dialog.Close>
          </div>
          <Dialog.Description className="sr-only">{t('polish.shortcutsDescription')}</Dialog.Description>
          <div className="mt-4 grid gap-6 sm:grid-cols-2">
            {GROUPS.map((group) => (
              <section key={group}>
                <h3 className="mb-2 text-xs font-semibold tracking-wide text-zinc-500 uppercase">{t(`polish.shortcutGroups.${group}`)}</h3>
                <dl className="space-y-1.5">
                  {SHORTCUTS.filter((s) => s.group === group).map((s) => (
                    <div key={s.id} className="flex items-center justify-between gap-3 text-sm" data-testid={`shortcut-${s.id}`}>
                      <dt>{t(`polish.shortcutNames.${s.id}`)}</dt>
                      <dd className="flex shrink-0 gap-1">
                        {shortcutKeys(s).map((k) => (
                          <kbd key={k} className="min-w-6 rounded border border-zinc-300 bg-zinc-50 px-1.5 py-0.5 text-center font-mono text-xs dark:border-zinc-700 dark:bg-zinc-800">
                            {k}
                          </kbd>
                        ))}
                      </dd>
                    </div>
                  ))}
                </dl>
              </section>
            ))}
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  )
}
