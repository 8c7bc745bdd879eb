import { describe, expect, it } from 'vitest'
import { readFeatureSettings } from '../../../src/shared/data/app-settings'
import { checkImportedSettings } from '../../../src/core/security/imported-settings'

// Issue 52: the features' rows of the settings table are read through one definition. The stored
// shapes check types, not an import file's bounds: what ToolService stored stays readable.

describe('readFeatureSettings', () => {
  it('keeps a server that tools.import stored although an import file could not carry it', () => {
    const server = { id: 'a', name: 'Long', transport: 'stdio', command: `node ${'x'.repeat(5000)}`, enabled: true }
    expect(checkImportedSettings({ toolServers: [server] }, 'host').refused).toHaveLength(1)
    expect(readFeatureSettings({ toolServers: [server] }).settings.toolServers).toEqual([server])
  })

  it('names each value it leaves out by where it stands, and keeps the rest', () => {
    const { settings, refused } = readFeatureSettings({
      localApi: { keys: [{ id: 'k', hash: 'not-hex' }] },
      toolServers: [{ id: 's', name: 'S', transport: 'http', url: 'http://x', enabled: true }, 'nonsense'],
      tools: { stepLimit: 0, allowPrivateAddresses: true },
      titleModel: 'not a feature key'
    })
    expect(refused.map((r) => r.key)).toEqual(['localApi', 'toolServers.1', 'tools.stepLimit'])
    expect(settings).toEqual({ toolServers: [{ id: 's', name: 'S', transport: 'http', url: 'http://x', enabled: true }], tools: { allowPrivateAddresses: true } })
  })

  it('reads nothing for absent rows: the features take their defaults', () => {
    expect(readFeatureSettings({})).toEqual({ settings: {}, refused: [] })
  })
})
