import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { VoiceModelOption, VoiceSettings as Settings } from '../../../shared/bridge/procedures/speech'
import { bridge } from '../../stores/app-store'
import { useProviders } from '../providers/providers-store'

const key = (o: { providerId: string; modelId: string }) => `${o.providerId}/${o.modelId}`

/** Settings → Voice: which TTS model and voice read aloud, which STT model dictation uses. */
export function VoiceSettings() {
  const { t } = useTranslation()
  const [options, setOptions] = useState<VoiceModelOption[]>([])
  const [settings, setSettings] = useState<Settings>({})
  // Adding or removing a key below changes which speech models exist: list them again.
  const usable = useProviders((s) => s.providers.filter((p) => p.available).map((p) => p.id).join(','))
  useEffect(() => {
    void bridge()
      .call('speech.models', {})
      .then((r) => r.ok && setOptions(r.value))
    void bridge()
      .call('speech.settings', {})
      .then((r) => r.ok && setSettings(r.value))
  }, [usable])
  const save = async (next: Settings) => {
    setSettings(next)
    await bridge().call('data.settings.set', { patch: { voice: next } })
  }
  const tts = options.filter((o) => o.type === 'tts')
  const stt = options.filter((o) => o.type === 'stt')
  const voices = tts.find((o) => settings.tts && key(o) === key(settings.tts))?.voices ?? []
  const select = 'mt-1 block w-72 rounded-md border border-zinc-300 bg-transparent px-3 py-2 text-sm dark:border-zinc-700 dark:bg-zinc-900'
  const label = (o: VoiceModelOption) => `${o.providerName} · ${o.displayName ?? o.modelId}`
  return (
    <section className="space-y-3" data-testid="voice-settings">
      <h2 className="text-sm font-semibold tracking-wide text-zinc-500 uppercase">{t('voice.settingsTitle')}</h2>
      {options.length === 0 && <p className="text-xs text-zinc-500">{t('voice.noModels')}</p>}
      <label className="block text-sm font-medium">
        {t('voice.ttsModel')}
        <select
          className={select}
          data-testid="voice-tts-model"
          value={settings.tts ? key(settings.tts) : ''}
          onChange={(e) => {
            const o = tts.find((x) => key(x) === e.target.value)
            if (o) void save({ ...settings, tts: { providerId: o.providerId, modelId: o.modelId, voice: o.voices?.[0] ?? 'alloy' } })
          }}
        >
          {!settings.tts && <option value="">—</option>}
          {tts.map((o) => (
            <option key={key(o)} value={key(o)}>
              {label(o)}
            </option>
          ))}
        </select>
      </label>
      {settings.tts && voices.length > 0 && (
        <label className="block text-sm font-medium">
          {t('voice.voice')}
          <select className={select} data-testid="voice-tts-voice" value={settings.tts.voice} onChange={(e) => settings.tts && void save({ ...settings, tts: { ...settings.tts, voice: e.target.value } })}>
            {voices.map((v) => (
              <option key={v} value={v}>
                {v.split(':').pop()}
              </option>
            ))}
          </select>
        </label>
      )}
      <label className="block text-sm font-medium">
        {t('voice.sttModel')}
        <select
          className={select}
          data-testid="voice-stt-model"
          value={settings.stt ? key(settings.stt) : ''}
          onChange={(e) => {
            const o = stt.find((x) => key(x) === e.target.value)
            if (o) void save({ ...settings, stt: { providerId: o.providerId, modelId: o.modelId } })
          }}
        >
          {!settings.stt && <option value="">—</option>}
          {stt.map((o) => (
            <option key={key(o)} value={key(o)}>
              {label(o)}
            </option>
          ))}
        </select>
      </label>
    </section>
  )
}
