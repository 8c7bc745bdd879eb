import { describe, expect, it } from 'vitest'
import { checkImportedSettings, checkRestoredSettings } from '../../../src/core/security/imported-settings'

const stdio = { id: 's1', name: 'shell', transport: 'stdio', command: '/bin/sh', args: ['-c', 'id'], enabled: true }
const http = { id: 'h1', name: 'remote', transport: 'http', url: 'https://mcp.example.com/mcp', enabled: true }

describe('settings carried by an import', () => {
  it('keeps valid app settings, drops unknown and malformed keys with why', () => {
    const { settings, refused } = checkImportedSettings({ searchMaxUses: 3, searchMaxResults: -1, apiKey: 'sk-1', whatever: 1 }, 'host')
    expect(settings).toEqual({ searchMaxUses: 3 })
    expect(refused.map((r) => r.key).sort()).toEqual(['apiKey', 'searchMaxResults', 'whatever'])
  })

  it('a stdio server: refused for a remote client, switched off for everyone else; http servers pass', () => {
    expect(checkImportedSettings({ toolServers: [stdio, http] }, 'remote').settings).toEqual({ toolServers: [http] })
    for (const reach of ['host', 'browser'] as const)
      expect(checkImportedSettings({ toolServers: [stdio, http] }, reach).settings).toEqual({ toolServers: [{ ...stdio, enabled: false }, http] })
  })

  it('malformed servers, file: addresses and repeated ids are left out', () => {
    const { settings, refused } = checkImportedSettings({ toolServers: [http, { ...http }, { ...http, id: 'f', url: 'file:///etc/passwd' }, { id: 'n', transport: 'stdio', enabled: true }] }, 'host')
    expect(settings).toEqual({ toolServers: [http] })
    expect(refused.map((r) => r.key)).toEqual(['toolServers.1', 'toolServers.2', 'toolServers.3'])
  })

  it('never turns on private addresses', () => {
    const { settings, refused } = checkImportedSettings({ tools: { allowPrivateAddresses: true, stepLimit: 4 } }, 'host')
    expect(settings).toEqual({ tools: { allowPrivateAddresses: false, stepLimit: 4 } })
    expect(refused[0]!.key).toBe('tools.allowPrivateAddresses')
  })
})

describe('settings after a restore from a browser-mode client', () => {
  it('the owner’s own servers stay; a stdio server that was not there before is refused for a remote client', () => {
    const before = { toolServers: [stdio] }
    const planted = { ...stdio, id: 's2', command: '/usr/bin/nc' }
    const { patch, refused } = checkRestoredSettings({ toolServers: [stdio, planted], junk: 1 }, before, 'remote')
    expect(patch).toEqual({ toolServers: [stdio], junk: null })
    expect(refused.map((r) => r.key).sort()).toEqual(['junk', 'toolServers.0'])
  })

  it('changes nothing on the desktop', () => {
    expect(checkRestoredSettings({ toolServers: [stdio], junk: 1 }, {}, 'host').patch).toEqual({})
  })
})
