import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { bridge } from '../../stores/app-store'

/** Web-search limits from Settings: xAI results per search (1..30, default 15), Anthropic's max searches. */
export function SearchLimitsSetting() {
  const { t } = useTranslation()
  const [values, setValues] = useState<{ searchMaxResults?: number; searchMaxUses?: number }>({})
  useEffect(() => {
    void bridge()
      .call('data.settings.get', {})
      .then((r) => {
        if (!r.ok) return
        const n = (v: unknown) => (typeof v === 'number' ? v : undefined)
        setValues({ searchMaxResults: n(r.value['searchMaxResults']), searchMaxUses: n(r.value['searchMaxUses']) })
      })
  }, [])
  const save = (key: 'searchMaxResults' | 'searchMaxUses', raw: string, max: number) => {
    const value = raw.trim() ? Math.min(max, Math.max(1, Math.round(Number(raw)))) : undefined
    setValues((v) => ({ ...v, [key]: value }))
    void bridge().call('data.settings.set', { patch: { [key]: value ?? null } })
  }
  const input = 'mt-1 block w-24 rounded-md border border-zinc-300 bg-transparent px-2 py-1 text-sm dark:border-zinc-700'
  return (
    <div className="flex gap-6" data-testid="search-limits-setting">
      <label className="text-sm font-medium">
        {t('controls.searchMaxResults')}
        <input type="number" min={1} max={30} placeholder="15" defaultValue={values.searchMaxResults ?? ''} key={`r${values.searchMaxResults ?? ''}`} onBlur={(e) => save('searchMaxResults', e.target.value, 30)} className={input} data-testid="search-max-results" />
      </label>
      <label className="text-sm font-medium">
        {t('controls.searchMaxUses')}
        <input type="number" min={1} max={20} placeholder="–" defaultValue={values.searchMaxUses ?? ''} key={`u${values.searchMaxUses ?? ''}`} onBlur={(e) => save('searchMaxUses', e.target.value, 20)} className={input} data-testid="search-max-uses" />
      </label>
    </div>
  )
}
