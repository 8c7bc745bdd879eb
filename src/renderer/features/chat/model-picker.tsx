import * as Dialog from '@radix-ui/react-dialog'
import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { PickerGroup, PickerModel } from '../../../shared/bridge/procedures/providers'
import { providerActions, useProviders } from '../providers/providers-store'

const formatContext = (n?: number) => (n === undefined ? '' : n >= 1_000_000 ? `${(n / 1_000_000).toFixed(n % 1_000_000 ? 1 : 0)}M` : `${Math.round(n / 1000)}K`)
const symbol = (currency: string) => (currency === 'CNY' ? '¥' : currency === 'USD' ? '$' : `${currency} `)

function Badges({ model }: { model: PickerModel }) {
  const { t } = useTranslation()
  const badge = 'rounded px-1 py-px text-[10px] font-medium'
  const a = model.abilities
  return (
    <span className="flex gap-1">
      {a.vision && <span className={`${badge} bg-emerald-100 text-emerald-800 dark:bg-emerald-900 dark:text-emerald-200`}>{t('models.vision')}</span>}
      {a.functionCall && <span className={`${badge} bg-sky-100 text-sky-800 dark:bg-sky-900 dark:text-sky-200`}>{t('models.tools')}</span>}
      {a.reasoning && <span className={`${badge} bg-violet-100 text-violet-800 dark:bg-violet-900 dark:text-violet-200`}>{t('models.reasoning')}</span>}
      {a.search && <span className={`${badge} bg-amber-100 text-amber-800 dark:bg-amber-900 dark:text-amber-200`}>{t('models.searchAbility')}</span>}
      {a.imageOutput && <span className={`${badge} bg-pink-100 text-pink-800 dark:bg-pink-900 dark:text-pink-200`}>{t('models.imageOutput')}</span>}
    </span>
  )
}

/** Providers with their enabled models; by default only those with a key or a running local server. */
export function ModelPicker({ current, onPick }: { current?: { providerId: string; modelId: string }; onPick(providerId: string, modelId: string): void }) {
  const { t } = useTranslation()
  const picker = useProviders((s) => s.picker)
  const [open, setOpen] = useState(false)
  const [query, setQuery] = useState('')
  const [showAll, setShowAll] = useState(false)
  const [groups, setGroups] = useState<PickerGroup[]>()
  const shown = groups ?? picker
  const filtered = useMemo(() => {
    const q = query.trim().toLowerCase()
    return shown
      // Without a query: the enabled models. A query searches every model of the provider.
      .map((g) => ({ ...g, models: q ? g.models.filter((m) => `${m.displayName} ${m.id} ${g.provider.name}`.toLowerCase().includes(q)) : g.models.filter((m) => m.enabled) }))
      .filter((g) => g.models.length > 0)
  }, [shown, query])
  const currentModel = picker.flatMap((g) => g.models).find((m) => m.providerId === current?.providerId && m.id === current?.modelId)
  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next)
        if (next) void providerActions.refreshPicker()
      }}
    >
      <Dialog.Trigger asChild>
        <button data-testid="model-picker" className="flex items-center gap-2 rounded-md border border-zinc-300 px-2.5 py-1 text-sm hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800">
          {current ? (
            <>
              <span className="text-zinc-500">{current.providerId}</span>
              <span className="font-medium">{currentModel?.displayName ?? current.modelId}</span>
            </>
          ) : (
            <span>{t('models.pick')}</span>
          )}
          <span aria-hidden>▾</span>
        </button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 bg-black/30" />
        <Dialog.Content className="fixed top-[10vh] left-1/2 flex max-h-[80vh] w-[min(94vw,44rem)] -translate-x-1/2 flex-col rounded-xl bg-white shadow-xl dark:bg-zinc-900">
          <div className="border-b border-zinc-200 p-3 dark:border-zinc-800">
            <Dialog.Title className="sr-only">{t('models.pick')}</Dialog.Title>
            <Dialog.Description className="sr-only">{t('models.pickHelp')}</Dialog.Description>
            <input
              autoFocus
              aria-label={t('models.search')}
              value={query}
              onChange={(e) => setQuery(e.target.value)}
              placeholder={t('models.search')}
              data-testid="model-search"
              className="w-full rounded-md border border-zinc-300 bg-transparent px-3 py-2 text-sm dark:border-zinc-700"
            />
            <label className="mt-2 flex items-center gap-2 text-xs text-zinc-600 dark:text-zinc-400">
              <input
                type="checkbox"
                checked={showAll}
                onChange={async (e) => {
                  setShowAll(e.target.checked)
                  const r = await providerActions.refreshPicker(e.target.checked)
                  setGroups(e.target.checked && r.ok ? r.value : undefined)
                }}
              />
              {t('models.showAll')}
            </label>
          </div>
          <div className="min-h-0 flex-1 overflow-y-auto p-2">
            {filtered.length === 0 && <p className="p-4 text-sm text-zinc-500">{showAll ? t('models.none') : t('models.noneAvailable')}</p>}
            {filtered.map((group) => (
              <section key={group.provider.id} className="mb-3">
                <h3 className="flex items-center gap-2 px-2 py-1 text-xs font-semibold tracking-wide text-zinc-500 uppercase">
                  {group.provider.name}
                  {!group.provider.available && <span className="font-normal normal-case">· {group.provider.local ? t('models.notRunning') : t('models.noKey')}</span>}
                </h3>
                {group.models.map((model) => (
                  <button
                    key={model.id}
                    data-testid={`pick-${group.provider.id}-${model.id}`}
                    onClick={() => {
                      onPick(group.provider.id, model.id)
                      setOpen(false)
                    }}
                    className={`flex w-full items-center justify-between gap-3 rounded-md px-2 py-1.5 text-left text-sm hover:bg-zinc-100 dark:hover:bg-zinc-800 ${
                      current?.providerId === group.provider.id && current.modelId === model.id ? 'bg-accent/10' : ''
                    }`}
                  >
                    <span className="flex min-w-0 items-center gap-2">
                      <span className="truncate font-medium">{model.displayName}</span>
                      <Badges model={model} />
                    </span>
                    <span className="flex shrink-0 gap-3 text-xs text-zinc-500">
                      {model.contextWindowTokens && <span title={t('models.context')}>{formatContext(model.contextWindowTokens)}</span>}
                      {model.price && (
                        <span title={t('models.pricePerMillion')}>
                          {symbol(model.price.currency)}
                          {model.price.input ?? '–'} / {symbol(model.price.currency)}
                          {model.price.output ?? '–'}
                        </span>
                      )}
                    </span>
                  </button>
                ))}
              </section>
            ))}
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  )
}
