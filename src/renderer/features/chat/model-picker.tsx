import * as Dialog from '@radix-ui/react-dialog'
import { useEffect, useId, useMemo, useState, type KeyboardEvent } from 'react'
import { Trans, useTranslation } from 'react-i18next'
import { ChevronDown } from 'lucide-react'
import type { PickerGroup, PickerModel } from '../../../shared/bridge/procedures/providers'
import { filterPickerGroups } from '../providers/filter-models'
import { providerActions, usePickerDialog, useProviders } from '../providers/providers-store'
import { KeyStorageNote } from '../providers/key-storage-note'

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

/** The header chip's words: the provider's and the model's display names, never raw ids. */
export function useModelLabel(current?: { providerId: string; modelId: string }): { provider?: string; model?: string } {
  const provider = useProviders(
    (s) => s.picker.find((g) => g.provider.id === current?.providerId)?.provider.name ?? s.providers.find((p) => p.id === current?.providerId)?.name
  )
  const model = useProviders((s) => {
    if (!current) return undefined
    const match = (m: PickerModel) => m.providerId === current.providerId && m.id === current.modelId
    return s.picker.flatMap((g) => g.models).find(match)?.displayName ?? s.models[current.providerId]?.find(match)?.displayName
  })
  // Until the lists arrive the provider is left out rather than shown as its id; a model the
  // catalogue does not know is named by its id, which is the only name it has.
  return { provider, model: model ?? current?.modelId }
}

/**
 * Providers with their enabled models; by default only those with a key or a running local
 * server. A listbox: the search box keeps the focus and moves the active option with
 * the arrow keys, Home/End, and picks it with Enter.
 */
export function ModelPicker({ current, onPick }: { current?: { providerId: string; modelId: string }; onPick(providerId: string, modelId: string): void }) {
  const { t } = useTranslation()
  const picker = useProviders((s) => s.picker)
  const [open, setOpen] = usePickerDialog()
  const [query, setQuery] = useState('')
  const [showAll, setShowAll] = useState(false)
  const [groups, setGroups] = useState<PickerGroup[]>()
  const shown = groups ?? picker
  const filtered = useMemo(() => filterPickerGroups(shown, query), [shown, query])
  const label = useModelLabel(current)
  const options = useMemo(() => filtered.flatMap((g) => g.models.map((m) => ({ providerId: g.provider.id, modelId: m.id }))), [filtered])
  const [active, setActive] = useState(0)
  const listId = useId()
  const optionId = (i: number) => `${listId}-option-${i}`
  // A new search starts at its first match; opening starts at the current model.
  useEffect(() => {
    const at = options.findIndex((o) => o.providerId === current?.providerId && o.modelId === current?.modelId)
    setActive(query.trim() || at < 0 ? 0 : at)
  }, [options, query, current])
  useEffect(() => {
    if (open) document.getElementById(`${listId}-option-${active}`)?.scrollIntoView({ block: 'nearest' })
  }, [active, open, listId])
  const pick = (providerId: string, modelId: string) => {
    onPick(providerId, modelId)
    setOpen(false)
  }
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (options.length === 0) return
    const move = (to: number) => {
      event.preventDefault()
      setActive(Math.max(0, Math.min(options.length - 1, to)))
    }
    if (event.key === 'ArrowDown') move(active + 1)
    else if (event.key === 'ArrowUp') move(active - 1)
    else if (event.key === 'Home' && event.ctrlKey) move(0)
    else if (event.key === 'End' && event.ctrlKey) move(options.length - 1)
    else if (event.key === 'PageDown') move(active + 8)
    else if (event.key === 'PageUp') move(active - 8)
    else if (event.key === 'Enter' && !event.nativeEvent.isComposing) {
      event.preventDefault()
      const option = options[active]
      if (option) pick(option.providerId, option.modelId)
    }
  }
  let index = -1
  return (
    <Dialog.Root
      open={open}
      onOpenChange={setOpen}
    >
      <Dialog.Trigger asChild>
        <button data-testid="model-picker" className="flex min-w-0 items-center gap-2 rounded-md border border-zinc-300 px-2.5 py-1 text-sm hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800">
          {current ? (
            <>
              {label.provider && (
                <span className="max-w-40 truncate text-zinc-500" data-testid="model-chip-provider">
                  {label.provider}
                </span>
              )}
              <span className="max-w-56 truncate font-medium" data-testid="model-chip-model">
                {label.model}
              </span>
            </>
          ) : (
            <span>{t('models.pick')}</span>
          )}
          <ChevronDown aria-hidden className="size-3.5 shrink-0 text-zinc-500" />
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
              value={query}
              onChange={(e) => setQuery(e.target.value)}
              onKeyDown={onKeyDown}
              placeholder={t('models.search')}
              aria-label={t('models.search')}
              role="combobox"
              aria-expanded
              aria-controls={listId}
              aria-autocomplete="list"
              aria-activedescendant={options.length ? optionId(active) : undefined}
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
          <div id={listId} role="listbox" aria-label={t('models.pick')} className="min-h-0 flex-1 overflow-y-auto p-2" data-testid="model-listbox">
            {filtered.length === 0 && (
              <p className="p-4 text-sm text-zinc-500" data-testid="model-picker-empty" role="status">
                {query.trim() ? (
                  t('chatPolish.noModelMatches', { query: query.trim() })
                ) : (
                  <Trans
                    i18nKey="chatPolish.noProviderReady"
                    components={{
                      providers: (
                        <a href="#/settings" className="text-accent underline" onClick={() => setOpen(false)} data-testid="picker-settings-link">
                          {' '}
                        </a>
                      )
                    }}
                  />
                )}
                {!query.trim() && <KeyStorageNote />}
              </p>
            )}
            {filtered.map((group) => (
              <section key={group.provider.id} className="mb-3" role="group" aria-labelledby={`${listId}-${group.provider.id}`}>
                <h3 id={`${listId}-${group.provider.id}`} className="flex items-center gap-2 px-2 py-1 text-xs font-semibold tracking-wide text-zinc-500 uppercase">
                  {group.provider.name}
                  {!group.provider.available && <span className="font-normal normal-case">· {group.provider.local ? t('models.notRunning') : t('models.noKey')}</span>}
                </h3>
                {group.models.map((model) => {
                  const at = ++index
                  const selected = current?.providerId === group.provider.id && current.modelId === model.id
                  return (
                    <button
                      key={model.id}
                      id={optionId(at)}
                      type="button"
                      role="option"
                      tabIndex={-1}
                      aria-selected={at === active}
                      aria-current={selected || undefined}
                      data-active={at === active || undefined}
                      data-testid={`pick-${group.provider.id}-${model.id}`}
                      onMouseMove={() => at !== active && setActive(at)}
                      onClick={() => pick(group.provider.id, model.id)}
                      className={`flex w-full items-center justify-between gap-3 rounded-md px-2 py-1.5 text-left text-sm ${at === active ? 'bg-zinc-100 dark:bg-zinc-800' : ''} ${
                        selected ? 'ring-1 ring-accent/40 ring-inset' : ''
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
                  )
                })}
              </section>
            ))}
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  )
}
