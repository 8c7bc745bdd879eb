import i18next from 'i18next'
import { beforeAll, describe, expect, it } from 'vitest'
import { en } from '../../../src/renderer/i18n/locales/en'
import { zhCN } from '../../../src/renderer/i18n/locales/zh-CN'

// Counts are worded by i18next's plural rules: "Fetched 1 models" and "1 agents" were fixed strings.
const i18n = i18next.createInstance()
beforeAll(async () => {
  await i18n.init({ resources: { en: { translation: en }, 'zh-CN': { translation: zhCN } }, lng: 'en', fallbackLng: 'en', interpolation: { escapeValue: false } })
})

describe('counted words', () => {
  it('Fetch model list says 1 model, 3 models', () => {
    expect(i18n.t('polish.fetchSummary', { count: 1, added: 1, removed: 0 })).toBe('Fetched 1 model: 1 new, 0 removed.')
    expect(i18n.t('polish.fetchSummary', { count: 3, added: 0, removed: 0 })).toBe('Fetched 3 models: 0 new, 0 removed.')
    expect(i18n.t('polish.fetchSummary', { lng: 'zh-CN', count: 1, added: 1, removed: 0 })).toBe('获取到 1 个模型：新增 1 个，移除 0 个。')
  })

  it('a backup holds 1 conversation, 1 message, 1 agent', () => {
    const holds = (n: number) =>
      i18n.t('backups.holds', { conversations: i18n.t('backups.conversations', { count: n }), messages: i18n.t('backups.messages', { count: n }), agents: i18n.t('backups.agents', { count: n }) })
    expect(holds(1)).toBe('1 conversation, 1 message, 1 agent')
    expect(holds(2)).toBe('2 conversations, 2 messages, 2 agents')
  })
})
