import { useTranslation } from 'react-i18next'
import { SETTINGS_SECTIONS } from './settings-sections'

/**
 * A sticky index beside Settings on wide windows: one click scrolls to a section (buttons, not
 * links: the hash is the app's route).
 */
export function SettingsIndex() {
  const { t } = useTranslation()
  return (
    <aside aria-label={t('polish.settingsIndex')} className="sticky top-0 hidden w-44 shrink-0 self-start xl:block" data-testid="settings-index">
      <ul className="space-y-0.5">
        {SETTINGS_SECTIONS.map((s) => (
          <li key={s.id}>
            <button
              type="button"
              data-testid={`settings-index-${s.id.replace('settings-', '')}`}
              onClick={() => document.getElementById(s.id)?.scrollIntoView({ block: 'start' })}
              className="w-full rounded-md px-2.5 py-1.5 text-left text-sm text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
            >
              {t(s.label)}
            </button>
          </li>
        ))}
      </ul>
    </aside>
  )
}
