import { afterEach, describe, expect, it } from 'vitest'
import { openTemp } from './helpers'

// Issue 52: the features' own keys (local API, tool servers, tool settings) are typed views of
// the one table, parsed once per change like the Settings keys: the local API reads its row
// on every request, and that read must not parse the table each time.

let cleanup: (() => void) | undefined
afterEach(() => cleanup?.())

describe('the features’ settings', () => {
  it('are parsed once per change of the table, then the new values', () => {
    const t = openTemp()
    cleanup = t.cleanup
    t.store.settings.save({ localApi: { enabled: false, host: '127.0.0.1', port: 4400, keys: [], aliases: {}, allowedOrigins: [], allowedHosts: [] } })
    const first = t.store.settings.features()
    expect(t.store.settings.features()).toBe(first)
    expect(first.localApi?.port).toBe(4400)
    t.store.settings.save({ tools: { stepLimit: 3 } })
    const second = t.store.settings.features()
    expect(second).not.toBe(first)
    expect(second).toMatchObject({ localApi: { port: 4400 }, tools: { stepLimit: 3 } })
    t.store.settings.save({ tools: null })
    expect(t.store.settings.features().tools).toBeUndefined()
  })

  it('fill in a partial local API row with its defaults, and never show among the Settings keys', () => {
    const t = openTemp()
    cleanup = t.cleanup
    t.store.settings.set({ localApi: { port: 4242 }, toolServers: [] })
    expect(t.store.settings.features().localApi).toEqual({ enabled: false, host: '127.0.0.1', port: 4242, keys: [], aliases: {}, allowedOrigins: [], allowedHosts: [] })
    expect(t.store.settings.features().toolServers).toEqual([])
    expect(Object.keys(t.store.settings.app())).toEqual([])
  })
})
