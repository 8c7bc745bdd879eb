import * as Dialog from '@radix-ui/react-dialog'
import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { COMPETITION_MAX_MODELS, sameModel } from '../../../../shared/chat/competition'
import { usePickerDialog, useProviders } from '../../providers/providers-store'
import { filterPickerGroups } from '../../providers/filter-models'
import { competitionActions, useCompetition } from './competition-store'
import { CompetitorName } from './competitor-name'

/**
 * Chat Competition from the composer: choose 2–4 models (any providers, local ones included, as
 * the model picker lists them); the next message goes to all of them at once.
 */
export function CompetitionPicker() {
  const { t } = useTranslation()
  const chosen = useCompetition((s) => s.models)
  const picker = useProviders((s) => s.picker)
  const [open, setOpen] = usePickerDialog()
  const [query, setQuery] = useState('')
  const groups = useMemo(() => filterPickerGroups(picker, query), [picker, query])
  const full = chosen.length >= COMPETITION_MAX_MODELS
  return (
    <div className="mb-2 flex flex-wrap items-center gap-1.5 text-xs" data-testid="competition-bar">
      <Dialog.Root
        open={open}
        onOpenChange={setOpen}
      >
        <Dialog.Trigger asChild>
          <button
            data-testid="competition-picker"
            aria-pressed={chosen.length > 1}
            className={`rounded-md border px-2 py-1 ${chosen.length > 1 ? 'border-accent bg-accent/10 text-accent' : 'border-zinc-300 text-zinc-600 hover:bg-zinc-100 dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800'}`}
          >
            {t('competition.pick')}
          </button>
        </Dialog.Trigger>
        <Dialog.Portal>
          <Dialog.Overlay className="fixed inset-0 bg-black/30" />
          <Dialog.Content className="fixed top-[10vh] left-1/2 flex max-h-[80vh] w-[min(94vw,36rem)] -translate-x-1/2 flex-col rounded-xl bg-white shadow-xl dark:bg-zinc-900">
            <div className="border-b border-zinc-200 p-3 dark:border-zinc-800">
              <Dialog.Title className="text-sm font-semibold">{t('competition.pickTitle')}</Dialog.Title>
              <Dialog.Description className="mt-1 text-xs text-zinc-500">{t('competition.pickHelp', { max: COMPETITION_MAX_MODELS })}</Dialog.Description>
              <input
                autoFocus
                value={query}
                onChange={(e) => setQuery(e.target.value)}
                placeholder={t('models.search')}
                className="mt-2 w-full rounded-md border border-zinc-300 bg-transparent px-3 py-2 text-sm dark:border-zinc-700"
              />
            </div>
            <div className="min-h-0 flex-1 overflow-y-auto p-2">
              {groups.length === 0 && <p className="p-4 text-sm text-zinc-500">{t('models.noneAvailable')}</p>}
              {groups.map((group) => (
                <section key={group.provider.id} className="mb-3">
                  <h3 className="px-2 py-1 text-xs font-semibold tracking-wide text-zinc-500 uppercase">{group.provider.name}</h3>
                  {group.models.map((model) => {
                    const ref = { providerId: group.provider.id, modelId: model.id }
                    const checked = chosen.some((m) => sameModel(m, ref))
                    return (
                      <label key={model.id} className="flex items-center gap-2 rounded-md px-2 py-1.5 text-sm hover:bg-zinc-100 dark:hover:bg-zinc-800">
                        <input
                          type="checkbox"
                          checked={checked}
                          disabled={!checked && full}
                          onChange={() => competitionActions.toggle(ref)}
                          data-testid={`compete-${group.provider.id}-${model.id}`}
                        />
                        <span className="truncate">{model.displayName}</span>
                      </label>
                    )
                  })}
                </section>
              ))}
            </div>
            <div className="flex justify-end gap-2 border-t border-zinc-200 p-3 dark:border-zinc-800">
              <button className="rounded-md px-3 py-1.5 text-sm" onClick={() => competitionActions.clear()} data-testid="competition-clear">
                {t('competition.clear')}
              </button>
              <Dialog.Close asChild>
                <button className="rounded-md bg-accent px-3 py-1.5 text-sm font-medium text-white" data-testid="competition-done">
                  {t('competition.done')}
                </button>
              </Dialog.Close>
            </div>
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>
      {chosen.map((m) => (
        <span key={`${m.providerId}/${m.modelId}`} className="flex items-center gap-1 rounded-full bg-zinc-100 px-2 py-0.5 dark:bg-zinc-800" data-testid="competition-chip" title={`${m.providerId}/${m.modelId}`}>
          {/* Named as everywhere else ("OpenAI", not its id, even before the picker's list is loaded). */}
          <span>
            <CompetitorName providerId={m.providerId} modelId={m.modelId} />
          </span>
          <button aria-label={t('competition.remove', { model: m.modelId })} onClick={() => competitionActions.toggle(m)} className="text-zinc-500 hover:text-zinc-900 dark:hover:text-white">
            ×
          </button>
        </span>
      ))}
      {chosen.length === 1 && <span className="text-amber-700 dark:text-amber-400">{t('competition.needTwo')}</span>}
      {chosen.length > 1 && <span className="text-zinc-500" data-testid="competition-note">{t('competition.sendsTo', { n: chosen.length })}</span>}
    </div>
  )
}
