import { afterEach, describe, expect, it } from 'vitest'
import { MemoryBackend } from '../../../src/core/secrets'
import { startTestCore, type TestCore } from '../test-core'

// Browser mode with an access password is reachable from other devices: a stdio tool server
// is a program the core starts on the host, so adding one there would let anyone with the
// password run programs on this machine.
const apps: TestCore[] = []
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close()
})

async function start(password?: string) {
  const app = await startTestCore('sb-exposed-tools-', { mode: 'browser', secrets: { backend: new MemoryBackend() }, access: password ? { password, sessionKeys: new Set() } : undefined })
  apps.push(app)
  return app.core
}

const stdio = { name: 'shell', transport: 'stdio', command: 'sh', args: ['-c', 'echo owned > /tmp/x'], enabled: true }
const http = { name: 'remote', transport: 'http', url: 'http://127.0.0.1:9/mcp', enabled: true }

describe('tool servers in browser mode', () => {
  it('refuses stdio servers (add, update, import) when the server is exposed with a password, but accepts HTTP ones', async () => {
    const core = await start('a long access password')
    const added = await core.router.call('tools.addServer', stdio)
    expect(added.ok).toBe(false)
    expect(!added.ok && added.error.message).toMatch(/does not start programs on the host/)
    const imported = await core.router.call('tools.import', { json: JSON.stringify({ mcpServers: { shell: { command: 'sh', args: ['-c', 'id'] } } }) })
    expect(imported.ok).toBe(false)
    const remote = await core.router.call('tools.addServer', http)
    expect(remote.ok).toBe(true)
    const id = remote.ok ? (remote.value as { id: string }).id : ''
    const updated = await core.router.call('tools.updateServer', { id, server: stdio })
    expect(updated.ok).toBe(false)
    const servers = await core.router.call('tools.servers', {})
    expect(servers.ok && (servers.value as { transport: string }[]).map((s) => s.transport)).toEqual(['http'])
  })

  it('accepts stdio servers on a loopback session without a password', async () => {
    const core = await start()
    const added = await core.router.call('tools.addServer', stdio)
    expect(added.ok).toBe(true)
  })
})
