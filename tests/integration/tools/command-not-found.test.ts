import { afterEach, describe, expect, it } from 'vitest'
import { ToolService } from '../../../src/core/tools/tool-service'
import type { JsonValue } from '../../../src/shared/data/json'

// A stdio tool server whose command is not installed (or not on the PATH an app started from the
// Finder has): the status names the command and the PATH that was searched.
const services: ToolService[] = []
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()))
})

function service() {
  const settings: Record<string, JsonValue | undefined> = {}
  const secrets = new Map<string, string>()
  const s = new ToolService(
    { get: () => settings, set: (patch) => Object.assign(settings, patch) },
    { set: async (n, v) => secrets.set(n, v), delete: async (n) => secrets.delete(n), readForRuntime: async (n) => secrets.get(n) },
    { backoffMs: 100 }
  )
  services.push(s)
  return s
}

describe('a stdio server whose command is missing', () => {
  it('says which command was not found and where it was looked for', async () => {
    const s = service()
    const { id } = await s.addServer({ name: 'ghost', transport: 'stdio', command: 'switchboard-no-such-command-xyz', args: [] })
    const [status] = await s.connect([id])
    expect(status!.state).toBe('error')
    expect(status!.error).toContain('ghost: the command "switchboard-no-such-command-xyz" was not found')
    expect(status!.error).toContain(`PATH (${process.env['PATH']}`)
  })

  it('says a full path does not exist', async () => {
    const s = service()
    const { id } = await s.addServer({ name: 'ghost', transport: 'stdio', command: '/nonexistent/bin/node', args: [] })
    const [status] = await s.connect([id])
    expect(status!.error).toContain('the command "/nonexistent/bin/node" was not found: that file does not exist')
  })
})
