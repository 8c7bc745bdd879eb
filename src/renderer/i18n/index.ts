import i18next from 'i18next'
import { initReactI18next } from 'react-i18next'
import { en } from './locales/en'
import { zhCN } from './locales/zh-CN'

export const LANGUAGES = [
  { code: 'en', label: 'English' },
  { code: 'zh-CN', label: '简体中文' }
] as const
export type Language = (typeof LANGUAGES)[number]['code']

export function detectLanguage(stored: string | null, navigatorLanguage: string): Language {
  if (stored === 'en' || stored === 'zh-CN') return stored
  return navigatorLanguage.toLowerCase().startsWith('zh') ? 'zh-CN' : 'en'
}

// i18next with react-i18next: plural rules, interpolation and lazy namespaces we would
// otherwise write by hand; the resources are typed by the English file.
void i18next.use(initReactI18next).init({
  resources: { en: { translation: en }, 'zh-CN': { translation: zhCN } },
  lng: detectLanguage(localStorage.getItem('switchboard.language'), navigator.language),
  fallbackLng: 'en',
  interpolation: { escapeValue: false },
  returnNull: false
})

export const i18n = i18next
