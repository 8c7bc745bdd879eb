import { useTranslation } from 'react-i18next'
import { imageActions, useImages } from './images-store'

/** Image models of the providers the user can use, grouped by provider. */
export function ImageModelPicker() {
  const { t } = useTranslation()
  const picker = useImages((s) => s.picker)
  const current = useImages((s) => s.current)
  const value = current ? `${current.providerId}\u0000${current.modelId}` : ''
  const groups = picker.map((g) => ({ ...g, models: g.models.filter((m) => m.enabled || (current?.providerId === g.provider.id && current.modelId === m.id)) })).filter((g) => g.models.length > 0)
  if (groups.length === 0) return <p className="text-sm text-zinc-500" data-testid="image-no-models">{t('images.noModels')}</p>
  return (
    <select
      value={value}
      onChange={(e) => {
        const [providerId, modelId] = e.target.value.split('\u0000')
        if (providerId && modelId) void imageActions.pickModel(providerId, modelId)
      }}
      className="w-full rounded-md border border-zinc-300 bg-transparent px-2 py-1.5 text-sm dark:border-zinc-700"
      data-testid="image-model-picker"
      aria-label={t('images.model')}
    >
      {!current && <option value="">{t('images.pickModel')}</option>}
      {groups.map((g) => (
        <optgroup key={g.provider.id} label={g.provider.name}>
          {g.models.map((m) => (
            <option key={m.id} value={`${g.provider.id}\u0000${m.id}`}>
              {m.displayName}
            </option>
          ))}
        </optgroup>
      ))}
    </select>
  )
}
