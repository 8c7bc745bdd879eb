/** The Settings sections, in page order; each id is a wrapper in settings-page.tsx. */
export const SETTINGS_SECTIONS = [
  { id: 'settings-general', label: 'settings.appearance' },
  { id: 'settings-voice', label: 'polish.sectionVoice' },
  { id: 'settings-providers', label: 'providers.title' },
  { id: 'settings-data', label: 'polish.sectionData' },
  { id: 'settings-tools', label: 'polish.sectionTools' },
  { id: 'settings-sync', label: 'sync.title' },
  { id: 'settings-model-library', label: 'library.settingsTitle' },
  { id: 'settings-local-api', label: 'localApi.title' },
  { id: 'settings-about', label: 'settings.about' }
] as const
