import { afterEach, expect, it, vi } from 'vitest'
import { logger } from '../../../src/core/log/logger'
import { ok, readyTestCore, type TestCore } from '../test-core'

// Issue 52: the tools' rows of the settings table are read through their one definition
// (shared/data/app-settings.ts). A malformed row, written by hand or by an older version, is
// left out and named in the log; it never reaches the tools as something it is not.

let t: TestCore | undefined
afterEach(async () => {
  vi.restoreAllMocks()
  await t?.close()
  t = undefined
})

const warnings = () => {
  const spy = vi.spyOn(logger, 'warn')
  return () => spy.mock.calls.map((c) => String(c[1]))
}

it('a malformed part of the tool settings is refused by name; the other parts stay as chosen', async () => {
  t = await readyTestCore('sb-stored-tools-')
  const logged = warnings()
  t.core.services().store.settings.set({ tools: { stepLimit: 5, agents: null, approvals: 'allow everything', search: { provider: 'tavily' } } })

  // Before, `agents: null` reached the chat's tool choice and threw a TypeError there.
  expect(t.core.services().tools.agentTools('a1')).toEqual({ servers: [], builtins: [] })
  const settings = ok(await t.client.call('tools.settings', {}))
  expect(settings).toMatchObject({ stepLimit: 5, agents: {}, approvals: {}, search: { provider: 'tavily' } })
  expect(ok(await t.client.call('tools.setApproval', { serverId: 's', tool: 'x', mode: 'allow' })).approvals).toEqual({ 's/x': 'allow' })
  expect(logged().filter((line) => /tools\.agents/.test(line))).toHaveLength(1)
  expect(logged().some((line) => /tools\.approvals/.test(line))).toBe(true)
})

it('a malformed tool server is left out by its place in the list; the others are listed', async () => {
  t = await readyTestCore('sb-stored-servers-')
  const logged = warnings()
  const fine = { id: 'fine', name: 'Fine', transport: 'http', url: 'http://127.0.0.1:9/mcp', enabled: false }
  t.core.services().store.settings.set({ toolServers: [{ id: 7, transport: 'teleport' }, fine] })
  const servers = ok(await t.client.call('tools.servers', {}))
  expect(servers.map((s) => s.id)).toEqual(['fine'])
  expect(logged().some((line) => /toolServers\.0/.test(line))).toBe(true)
  // A change saves the valid list back: the malformed entry is gone from the table.
  await t.client.call('tools.setEnabled', { id: 'fine', enabled: false })
  expect(t.core.services().store.settings.get()['toolServers']).toEqual([fine])
})

it('a malformed local API row reads as the defaults (off, loopback), logged once per change, not per read', async () => {
  t = await readyTestCore('sb-stored-local-api-')
  const logged = warnings()
  t.core.services().store.settings.set({ localApi: { enabled: true, port: 'eighty' } })
  for (let i = 0; i < 3; i++) {
    const status = ok(await t.client.call('localApi.status', {}))
    expect(status).toMatchObject({ enabled: false, host: '127.0.0.1', port: 4315, keys: [] })
  }
  expect(logged().filter((line) => /localApi/.test(line))).toHaveLength(1)
})
