import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { ModelRef } from '../../../shared/data/app-settings'
import { bridge } from '../../stores/app-store'
import { ModelPicker } from '../chat/model-picker'

type Choice = ModelRef

/** Scene "Summary Topic Title": which (small, cheap) model names new conversations. */
export function TitleModelSetting() {
  const { t } = useTranslation()
  const [choice, setChoice] = useState<Choice>()
  useEffect(() => {
    void bridge()
      .call('data.settings.get', {})
      .then((r) => r.ok && setChoice(r.value.titleModel))
  }, [])
  const save = async (next: Choice | null) => {
    const r = await bridge().call('data.settings.set', { patch: { titleModel: next } })
    if (r.ok) setChoice(next ?? undefined)
  }
  return (
    <div className="space-y-1" data-testid="title-model-setting">
      <div className="text-sm font-medium">{t('settings.titleModel')}</div>
      <p className="text-xs text-zinc-500">{t('settings.titleModelHint')}</p>
      <div className="flex items-center gap-2">
        <ModelPicker current={choice} onPick={(providerId, modelId) => void save({ providerId, modelId })} />
        {choice && (
          <button onClick={() => void save(null)} className="text-xs text-zinc-500 underline">
            {t('settings.useChatModel')}
          </button>
        )}
      </div>
    </div>
  )
}
