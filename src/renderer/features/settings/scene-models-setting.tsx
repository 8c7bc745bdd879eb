import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { bridge } from '../../stores/app-store'
import { ModelPicker } from '../chat/model-picker'

type Choice = { providerId: string; modelId: string }

/** Scenes besides Summary Topic Title (which has its own setting above). */
const SCENES = ['Summary History Messages', 'Translator', 'Language Detect', 'Search Intent Recognition', 'Summary Agent Title', 'Summary Agent Description', 'Summary Agent Tags'] as const

/** Which model runs each background scene (`sceneModels` in settings); none: the conversation's model. */
export function SceneModelsSetting() {
  const { t } = useTranslation()
  const [choices, setChoices] = useState<Record<string, Choice>>({})
  useEffect(() => {
    void bridge()
      .call('data.settings.get', {})
      .then((r) => {
        const value = r.ok ? r.value['sceneModels'] : undefined
        if (value && typeof value === 'object' && !Array.isArray(value)) setChoices(value as Record<string, Choice>)
      })
  }, [])
  const save = async (scene: string, next: Choice | undefined) => {
    const all = { ...choices }
    if (next) all[scene] = next
    else delete all[scene]
    const r = await bridge().call('data.settings.set', { patch: { sceneModels: all } })
    if (r.ok) setChoices(all)
  }
  return (
    <div className="space-y-2" data-testid="scene-models-setting">
      <div className="text-sm font-medium">{t('controls.sceneModels')}</div>
      <p className="text-xs text-zinc-500">{t('controls.sceneModelsHint')}</p>
      <ul className="space-y-1.5">
        {SCENES.map((scene) => (
          <li key={scene} className="flex items-center justify-between gap-2 text-sm" data-testid={`scene-model-${scene}`}>
            <span>{t(`controls.scene.${scene}`)}</span>
            <span className="flex items-center gap-2">
              <ModelPicker current={choices[scene]} onPick={(providerId, modelId) => void save(scene, { providerId, modelId })} />
              {choices[scene] ? (
                <button onClick={() => void save(scene, undefined)} className="text-xs text-zinc-500 underline">
                  {t('controls.sceneDefault')}
                </button>
              ) : null}
            </span>
          </li>
        ))}
      </ul>
    </div>
  )
}
