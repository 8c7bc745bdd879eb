import { useEffect } from 'react'
import { useTranslation } from 'react-i18next'
import { useRouter } from '../../stores/router-store'
import { Page } from '../../components/page'
import { ProvidersSection } from '../providers/providers-section'
import { TitleModelSetting } from './title-model-setting'
import { DataSection } from './data-section'
import { SceneModelsSetting } from './scene-models-setting'
import { SearchLimitsSetting } from './search-limits-setting'
import { VoiceSettings } from '../voice/voice-settings'
import { ToolsSettings } from '../tools/tools-settings'
import { LocalApiSection } from '../local-api/local-api-section'
import { SyncSection } from '../sync/sync-section'
import { ModelLibrarySettingsSection } from '../local-models/model-library-section'
import { LANGUAGES, type Language } from '../../i18n'
import { useApp, type ThemePreference } from '../../stores/app-store'
import { SignOutButton } from '../../components/sign-out-button'
import { SettingsIndex } from '../../components/settings-index'
import { CommandLineSetting, UpdatesSection } from './updates-section'

const THEMES: ThemePreference[] = ['light', 'dark', 'system']

export function SettingsPage() {
  const { t } = useTranslation()
  const { theme, setTheme, language, setLanguage, info } = useApp()
  // #/settings/<section> (a link from elsewhere, "Add an API key…"): scrolled to and highlighted.
  const section = useRouter((s) => (s.route.name === 'settings' ? s.route.params[0] : undefined))
  useEffect(() => {
    if (!section) return
    const element = document.getElementById(`settings-${section}`)
    if (!element) return
    element.scrollIntoView({ block: 'start' })
    element.dataset['highlighted'] = 'true'
    element.classList.add('ring-2', 'ring-accent', 'ring-offset-4', 'rounded-md')
    const timer = setTimeout(() => {
      delete element.dataset['highlighted']
      element.classList.remove('ring-2', 'ring-accent', 'ring-offset-4', 'rounded-md')
    }, 2500)
    return () => clearTimeout(timer)
  }, [section])
  return (
    <Page title={t('pages.settingsTitle')} testId="page-settings">
      {/* Wide windows: a section index beside the content (asks Settings to use the width). */}
      <div className="mx-auto flex max-w-[96rem] gap-10">
        <SettingsIndex />
      <div className="min-w-0 flex-1 space-y-8">
        <div className="grid max-w-3xl gap-8 2xl:max-w-none 2xl:grid-cols-2">
        <div className="space-y-8" id="settings-general">
        <section className="space-y-4">
          <h2 className="text-sm font-semibold tracking-wide text-zinc-500 uppercase">{t('settings.appearance')}</h2>
          <fieldset>
            <legend className="mb-2 text-sm font-medium">{t('settings.theme')}</legend>
            <div role="radiogroup" className="inline-flex rounded-lg border border-zinc-300 p-0.5 dark:border-zinc-700">
              {THEMES.map((value) => (
                <button
                  key={value}
                  role="radio"
                  aria-checked={theme === value}
                  data-testid={`theme-${value}`}
                  onClick={() => setTheme(value)}
                  className={`rounded-md px-3 py-1.5 text-sm ${theme === value ? 'bg-accent text-white' : 'text-zinc-600 dark:text-zinc-300'}`}
                >
                  {t(`settings.themes.${value}`)}
                </button>
              ))}
            </div>
          </fieldset>
          <label className="block text-sm font-medium">
            {t('settings.language')}
            <select
              value={language}
              data-testid="language-select"
              onChange={(e) => setLanguage(e.target.value as Language)}
              className="mt-2 block w-56 rounded-md border border-zinc-300 bg-transparent px-3 py-2 dark:border-zinc-700 dark:bg-zinc-900"
            >
              {LANGUAGES.map((l) => (
                <option key={l.code} value={l.code}>
                  {l.label}
                </option>
              ))}
            </select>
          </label>
        </section>
        <section className="space-y-3">
          <h2 className="text-sm font-semibold tracking-wide text-zinc-500 uppercase">{t('settings.chat')}</h2>
          <TitleModelSetting />
          <SceneModelsSetting />
          <SearchLimitsSetting />
        </section>
        </div>
        <div id="settings-voice">
          <VoiceSettings />
        </div>
        </div>
        <div className="max-w-6xl">
          <ProvidersSection />
        </div>
        <div id="settings-data" className="max-w-3xl">
          <DataSection />
        </div>
        <div id="settings-tools" className="max-w-3xl">
          <ToolsSettings />
        </div>
        <div id="settings-sync" className="max-w-3xl scroll-mt-4">
          <SyncSection />
        </div>
        <div id="settings-model-library" className="max-w-3xl scroll-mt-4">
          <ModelLibrarySettingsSection />
        </div>
        <div id="settings-local-api" className="max-w-3xl">
          <LocalApiSection />
        </div>
        <section className="space-y-1" id="settings-about">
          <h2 className="text-sm font-semibold tracking-wide text-zinc-500 uppercase">{t('settings.about')}</h2>
          {info && (
            <p className="text-sm" data-testid="about">
              {info.name} · {t('settings.version', { version: info.version })} · {t(`settings.mode.${info.mode}`)}
            </p>
          )}
          {info?.passwordRequired && <SignOutButton />}
          <UpdatesSection />
          <CommandLineSetting />
        </section>
      </div>
      </div>
    </Page>
  )
}
