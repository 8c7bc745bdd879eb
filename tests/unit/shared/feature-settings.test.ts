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

  it("reads the local servers' addresses as the old local-servers.json was read: a non-empty string each, the rest named", () => {
    const { settings, refused } = readFeatureSettings({ ollama: 'http://127.0.0.1:11500', lmstudio: '', vllm: { url: 'x' }, xinference: 'http://gpu:9997' })
    expect(settings).toEqual({ ollama: 'http://127.0.0.1:11500', xinference: 'http://gpu:9997' })
    expect(refused.map((r) => r.key)).toEqual(['lmstudio', 'vllm'])
  })

  it("keeps the local servers' addresses out of an import file (they are this machine's, and device-local in sync)", () => {
    const { settings, refused } = checkImportedSettings({ ollama: 'http://127.0.0.1:11500' }, 'host')
    expect(settings).toEqual({})
    expect(refused.map((r) => r.key)).toEqual(['ollama'])
  })

  it('reads nothing for absent rows: the features take their defaults', () => {
    expect(readFeatureSettings({})).toEqual({ settings: {}, refused: [] })
  })
})
