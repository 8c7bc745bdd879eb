import type { JsonValue } from './json'

/** App-wide preferences. Known keys are typed; features may add their own (kept as JSON). */
export interface AppSettings {
  language?: 'en' | 'zh-CN'
  theme?: 'light' | 'dark' | 'system'
  defaultAgentId?: string
  defaultProviderId?: string
  defaultModelId?: string
  sendKey?: 'enter' | 'mod-enter'
  [key: string]: JsonValue | undefined
}
