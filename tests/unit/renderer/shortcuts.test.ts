import { describe, expect, it } from 'vitest'
import { NAV_ORDER, NAV_SHORTCUTS, SHORTCUTS, matchesShortcut, shortcutKeys, type Shortcut } from '../../../src/renderer/components/shortcuts'
import { en } from '../../../src/renderer/i18n/locales/en'
import { zhCN } from '../../../src/renderer/i18n/locales/zh-CN'
import { orderProviders } from '../../../src/renderer/features/providers/provider-order'
import { monogram } from '../../../src/renderer/features/providers/provider-icon'
import type { ProviderSummary } from '../../../src/shared/bridge/procedures/providers'

const press = (s: Shortcut, ctrl = true) => ({
  key: s.shift && s.key.length === 1 ? s.key.toUpperCase() : s.key,
  ctrlKey: Boolean(s.mod) && ctrl,
  metaKey: Boolean(s.mod) && !ctrl,
  shiftKey: Boolean(s.shift),
  altKey: false
})

describe('the one list of shortcuts (issue 17)', () => {
  it('each entry is matched by its own keys, with Ctrl or Cmd, and by no other entry', () => {
    for (const s of SHORTCUTS) {
      for (const ctrl of [true, false]) {
        const hits = SHORTCUTS.filter((other) => matchesShortcut(press(s, ctrl), other.id)).map((o) => o.id)
        expect(hits, s.id).toEqual([s.id])
      }
    }
  })

  it('includes the command palette and the sheet itself, and names every entry in both languages', () => {
    expect(matchesShortcut({ key: 'k', ctrlKey: true, metaKey: false, shiftKey: false, altKey: false }, 'command-palette')).toBe(true)
    expect(matchesShortcut({ key: '/', ctrlKey: false, metaKey: true, shiftKey: false, altKey: false }, 'shortcuts')).toBe(true)
    for (const s of SHORTCUTS) {
      expect(en.polish.shortcutNames[s.id], s.id).toBeTruthy()
      expect(zhCN.polish.shortcutNames[s.id], s.id).toBeTruthy()
      expect(shortcutKeys(s, false).length).toBeGreaterThan(0)
    }
  })

  it('Alt never matches (Alt+letter types characters on many layouts)', () => {
    expect(matchesShortcut({ key: 'b', ctrlKey: true, metaKey: false, shiftKey: false, altKey: true }, 'toggle-nav')).toBe(false)
  })
})

describe('Settings → Providers order (issue 17)', () => {
  const p = (id: string, name: string, extra: Partial<ProviderSummary> = {}): ProviderSummary => ({
    id, name, sdkType: 'openai', enabled: false, hasKey: false, keyPersistent: true, local: false, available: false,
    canFetchModels: true, usesApiKey: true, credentialFields: [], ...extra
  })

  it('pins configured and local providers, each part sorted by display name, and searches names and ids', () => {
    const list = [p('zhipu', 'ZhiPu'), p('openai', 'OpenAI', { hasKey: true, available: true }), p('ollama', 'Ollama', { local: true }), p('anthropic', 'Anthropic'), p('ai21', 'Ai21Labs')]
    const { pinned, rest } = orderProviders(list, '', 'en')
    expect(pinned.map((x) => x.id)).toEqual(['ollama', 'openai'])
    expect(rest.map((x) => x.id)).toEqual(['ai21', 'anthropic', 'zhipu'])
    expect(orderProviders(list, 'ANTH', 'en').rest.map((x) => x.id)).toEqual(['anthropic'])
  })

  it('monograms for providers without a logo', () => {
    expect(monogram('LM Studio')).toBe('LS')
    expect(monogram('Taichu')).toBe('TA')
    expect(monogram('302.AI')).toBe('3A')
  })
})

describe('Ctrl/Cmd+1…6', () => {
  it('follow the sidebar order, top to bottom', () => {
    expect([...NAV_ORDER]).toEqual(['chat', 'images', 'local-models', 'knowledge', 'usage', 'settings'])
    const byKey = SHORTCUTS.filter((s) => s.group === 'navigation').sort((a, b) => Number(a.key) - Number(b.key))
    expect(byKey.map((s) => NAV_SHORTCUTS[s.id])).toEqual(NAV_ORDER.map((route) => `/${route}`))
    expect(byKey.map((s) => s.key)).toEqual(['1', '2', '3', '4', '5', '6'])
  })
})
