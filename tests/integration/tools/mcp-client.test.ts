import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { ToolService } from '../../../src/core/tools/tool-service'
import type { JsonValue } from '../../../src/shared/data/json'
import type { ToolCall } from '../../../src/shared/stream/events'
import { EVERYTHING, HOSTILE, ok, startCore } from './helpers'
import { startEverythingHttp } from './spawn-http-server'

// The MCP client against the real reference server (stdio, Streamable HTTP, HTTP+SSE) and
// against misbehaving servers. Every case must end in a clear plugin error, never a hang.
function memoryService(backoffMs = 100, connectTimeoutMs?: number) {
  const settings: Record<string, JsonValue | undefined> = {}
  const secrets = new Map<string, string>()
  const service = new ToolService(
    { get: () => settings, set: (patch) => Object.assign(settings, patch) },
    { set: async (n, v) => secrets.set(n, v), delete: async (n) => secrets.delete(n), readForRuntime: async (n) => secrets.get(n) },
    { backoffMs, ...(connectTimeoutMs ? { connectTimeoutMs } : {}) }
  )
  return { service, settings, secrets }
}

const services: ToolService[] = []
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()))
})

async function serverWith(input: Parameters<ToolService['addServer']>[0], backoffMs?: number, connectTimeoutMs?: number) {
  const m = memoryService(backoffMs, connectTimeoutMs)
  services.push(m.service)
  const status = await m.service.addServer(input)
  return { ...m, id: status.id }
}

const call = (name: string, args: unknown): ToolCall => ({ id: `c-${Math.random()}`, type: 'function', function: { name, arguments: JSON.stringify(args) } })

async function run(service: ToolService, id: string, tool: string, args: unknown, signal = new AbortController().signal, onProgress?: (p: { progress: number }) => void) {
  const offered = (await service.toolsFor({ servers: [id], builtins: [] })).find((t) => t.tool === tool && t.serverId === id)
  if (!offered) throw new Error(`tool ${tool} not offered`)
  return service.execute(offered, call(offered.exposedName, args), { messageId: 'm', signal, ...(onProgress ? { onProgress } : {}) })
}

describe('MCP client with server-everything', () => {
  it('stdio: lists tools, resources and prompts, and calls a tool', async () => {
    const { service, id } = await serverWith({ name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] })
    expect(service.status(id).state).toBe('idle')
    const [status] = await service.connect([id])
    expect(status!.state).toBe('ready')
    expect(status!.tools.map((t) => t.name)).toContain('echo')
    expect(status!.resources.length).toBeGreaterThan(0)
    expect(status!.prompts.length).toBeGreaterThan(0)
    const { result } = await run(service, id, 'echo', { message: 'hi there' })
    expect(result).toMatchObject({ outcome: 'ok' })
    expect(result.content).toContain('hi there')
  })

  it('stdio: images come back as structured parts', async () => {
    const { service, id } = await serverWith({ name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] })
    const { result } = await run(service, id, 'get-tiny-image', {})
    expect(result.parts?.some((p) => p.type === 'image' && p.mimeType === 'image/png')).toBe(true)
  })

  for (const mode of ['streamableHttp', 'sse'] as const) {
    it(`${mode}: connects over HTTP with the configured headers and calls a tool`, async () => {
      const http = await startEverythingHttp(EVERYTHING, mode)
      try {
        const { service, id, settings, secrets } = await serverWith({ name: `everything-${mode}`, transport: mode === 'sse' ? 'sse' : 'http', url: http.url, headers: { Authorization: 'Bearer tok-123456' } })
        // The token went to the keychain; the settings keep only the header's name.
        expect(JSON.stringify(settings)).not.toContain('tok-123456')
        expect(JSON.stringify(settings)).toContain('Authorization')
        expect([...secrets.values()].join()).toContain('tok-123456')
        const [status] = await service.connect([id])
        expect(status!.error).toBeUndefined()
        expect(status!.state).toBe('ready')
        const { result } = await run(service, id, 'echo', { message: `over ${mode}` })
        expect(result.content).toContain(`over ${mode}`)
      } finally {
        await http.stop()
      }
    })
  }

  it('a long call that reports progress outlives the timeout; progress reaches the caller', async () => {
    const { service, id } = await serverWith({ name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], timeoutMs: 1500 })
    const progress: number[] = []
    const { result } = await run(service, id, 'trigger-long-running-operation', { duration: 4, steps: 8 }, undefined, (p) => progress.push(p.progress))
    expect(result.outcome).toBe('ok')
    // 4 s against a 1.5 s timeout: only the progress kept it alive. (The last notification can
    // race the result, so it may or may not be seen.)
    expect(progress.slice(0, 4)).toEqual([1, 2, 3, 4])
  })

  it('stop cancels a running call (MCP cancellation) and the server keeps working', async () => {
    const { service, id } = await serverWith({ name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] })
    const controller = new AbortController()
    const started = Date.now()
    const pending = run(service, id, 'trigger-long-running-operation', { duration: 30, steps: 30 }, controller.signal, () => controller.abort())
    const { result } = await pending
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(result.outcome).toBe('error')
    expect(result.content).toMatch(/cancel|abort/i)
    expect((await run(service, id, 'echo', { message: 'still here' })).result.content).toContain('still here')
  })
})

describe('hostile MCP servers end in clear errors', () => {
  it('a 1 MB tool schema is left out (PluginManifestInvalid in the status); the other tools work', async () => {
    const { service, id } = await serverWith({ name: 'hostile', transport: 'stdio', command: process.execPath, args: [HOSTILE, 'huge-schema'] })
    const [status] = await service.connect([id])
    expect(status!.state).toBe('ready')
    expect(status!.tools.map((t) => t.name)).toEqual(['ok'])
    expect(status!.rejectedTools?.[0]?.name).toBe('huge')
    expect(status!.rejectedTools?.[0]?.reason).toMatch(/KB/)
  })

  it('a 50 MB result is refused with PluginServerError, not sent to the model, and the server is restarted', async () => {
    const { service, id } = await serverWith({ name: 'hostile', transport: 'stdio', command: process.execPath, args: [HOSTILE, 'huge-result'] })
    const { result } = await run(service, id, 'big', {})
    expect(result).toMatchObject({ outcome: 'error', errorType: 'PluginServerError' })
    expect(result.content).toMatch(/more than 10 MB/)
    expect(result.content.length).toBeLessThan(1000)
  })

  it('a call that never answers times out with PluginGatewayError', async () => {
    const { service, id } = await serverWith({ name: 'hostile', transport: 'stdio', command: process.execPath, args: [HOSTILE, 'never'], timeoutMs: 1000 })
    const { result } = await run(service, id, 'hang', {})
    expect(result).toMatchObject({ outcome: 'error', errorType: 'PluginGatewayError' })
    expect(result.content).toContain('did not answer within 1 s')
  })

  it('a server that never answers initialize fails to connect with a clear error', async () => {
    const { service, id } = await serverWith({ name: 'silent', transport: 'stdio', command: process.execPath, args: [HOSTILE, 'silent'] }, undefined, 3000)
    const [status] = await service.connect([id])
    expect(status!.state).toBe('error')
    expect(status!.error).toContain('did not answer within 3 s')
  })

  it('garbage on stdout: the connection fails clearly and shows the stderr tail', async () => {
    const { service, id } = await serverWith({ name: 'garbage', transport: 'stdio', command: process.execPath, args: [HOSTILE, 'garbage'] }, undefined, 3000)
    const [status] = await service.connect([id])
    expect(status!.state).toBe('error')
    expect(status!.error).toContain('did not answer within 3 s')
    await expect.poll(() => service.status(id).stderrTail ?? '').toContain('garbage server starting')
  })

  it('a server that exits mid-call: PluginGatewayError, stderr tail, then restarted with back-off', async () => {
    const { service, id } = await serverWith({ name: 'crashy', transport: 'stdio', command: process.execPath, args: [HOSTILE, 'exit'] }, 50)
    const { result } = await run(service, id, 'die', {})
    expect(result).toMatchObject({ outcome: 'error', errorType: 'PluginGatewayError' })
    const crashed = service.status(id)
    expect(crashed.state === 'error' || crashed.state === 'connecting').toBe(true)
    expect(crashed.restarts).toBe(1)
    expect(crashed.stderrTail).toContain('simulated fatal error')
    // Back in service after the back-off, without anyone asking.
    await expect.poll(() => service.status(id).state, { timeout: 10_000 }).toBe('ready')
    expect((await run(service, id, 'ok', {})).result.content).toBe('ok')
  })

  it('a command that does not exist fails with PluginGatewayError naming the server', async () => {
    const { service, id } = await serverWith({ name: 'missing', transport: 'stdio', command: '/nonexistent/mcp-server-xyz' })
    const [status] = await service.connect([id])
    expect(status!.state).toBe('error')
    expect(status!.error).toMatch(/missing/)
  })
})

describe('tool servers in the app', () => {
  const marker = `sb-quit-marker-${process.pid}`
  let core: Awaited<ReturnType<typeof startCore>> | undefined
  afterAll(async () => core?.core.close())

  it('secrets go to the keychain, never the database; servers start lazily and all stop on quit', async () => {
    core = await startCore()
    const { client, dataDir } = core
    const status = ok(await client.call('tools.addServer', { name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio', marker], env: { SB_TEST_TOKEN: 'very-secret-token-42' } }))
    // Not started by adding it, nor by reading the list.
    expect(ok(await client.call('tools.servers', {}))[0]!.state).toBe('idle')
    const [ready] = ok(await client.call('tools.connect', { ids: [status.id] }))
    expect(ready!.state).toBe('ready')
    // The env value reached the server (get-env echoes its environment)…
    const offered = (await core.core.services().tools.toolsFor({ servers: [status.id], builtins: [] })).find((t) => t.tool === 'get-env')!
    const { result } = await core.core.services().tools.execute(offered, call(offered.exposedName, {}), { messageId: 'm', signal: new AbortController().signal })
    expect(result.content).toContain('very-secret-token-42')
    // …but no file in the data folder holds it.
    for (const name of readdirSync(dataDir)) {
      if (name.endsWith('.db') || name.endsWith('-wal')) expect(readFileSync(join(dataDir, name)).includes('very-secret-token-42')).toBe(false)
    }
    const running = () => execFileSync('ps', ['-eo', 'args']).toString().split('\n').filter((l) => l.includes(marker)).length
    expect(running()).toBe(1)
    await core.core.close()
    core = undefined
    expect(running()).toBe(0)
  })

  it('imports the mcpServers JSON format, env to the keychain', async () => {
    const m = memoryService()
    services.push(m.service)
    const imported = await m.service.importServers(
      JSON.stringify({ mcpServers: { fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], env: { KEY: 'k-1' } }, remote: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer secret-two' } }, old: { type: 'sse', url: 'https://example.com/sse' } } })
    )
    expect(imported.map((s) => [s.name, s.transport])).toEqual([['fs', 'stdio'], ['remote', 'http'], ['old', 'sse']])
    // Secrets no generated id can contain (a uuid is hex: "…9c6b-20d2…" once matched "b-2").
    expect(JSON.stringify(m.settings)).not.toMatch(/k-1|secret-two/)
    await expect(m.service.importServers('{"mcpServers": {"bad": {}}}')).rejects.toMatchObject({ error: { errorType: 'PluginManifestInvalid' } })
    await expect(m.service.importServers('not json')).rejects.toMatchObject({ error: { errorType: 'PluginManifestInvalid' } })
  })
})
