import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { afterEach, describe, expect, it } from 'vitest'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import { appPathFor, startBrowserServer } from '../../../src/server/server'
import type { ServerMessage } from '../../../src/shared/bridge/protocol'
import { startTestCore } from '../test-core'

// Browser mode reached by someone else: with the password they may use the app, but nothing they
// send (a procedure, an imported file) may start a program on the host, read a host file by path,
// or let the host's tools reach its private network. Driven over the real server and socket.
const TOKEN = 'exposed-host-token-0123456789'
const PASSWORD = 'a long access password'
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers of many procedures, checked field by field
type Answer = { ok: true; value: any } | { ok: false; error: { message: string; status: number } }
const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function start(password?: string) {
  const dir = mkdtempSync(join(tmpdir(), 'sb-exposed-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  const staticDir = join(dir, 'renderer')
  mkdirSync(staticDir, { recursive: true })
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html>')
  const core: Core = (await startTestCore('sb-exposed-', { dataDir: join(dir, 'data'), mode: 'browser', secrets: { backend: new MemoryBackend() }, access: password ? { password, sessionKeys: new Set() } : undefined })).core
  const server = await startBrowserServer({ core, staticDir, host: '127.0.0.1', port: 0, token: TOKEN, answerDelayMs: 1 })
  cleanups.push(async () => {
    await server.close()
    await core.close()
  })
  const origin = new URL(server.url).origin
  const base = `${origin}${appPathFor(TOKEN).slice(0, -1)}`
  let cookie: string
  if (password) cookie = (await fetch(`${origin}/`)).headers.get('set-cookie')!.split(';')[0]!
  else cookie = `switchboard_token=${TOKEN}`
  const ws = new WebSocket(`${base.replace('http', 'ws')}/bridge`, { headers: { Cookie: cookie, Origin: origin } })
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)))
  cleanups.push(() => ws.close())
  let next = 1
  const waitFor = (id: number, done: (m: ServerMessage) => boolean) =>
    new Promise<ServerMessage>((resolve) => {
      const on = (data: WebSocket.RawData) => {
        const m = JSON.parse(String(data)) as ServerMessage
        if ((m as { id?: number }).id === id && done(m)) {
          ws.off('message', on)
          resolve(m)
        }
      }
      ws.on('message', on)
    })
  const send = (m: object) => ws.send(JSON.stringify(m))
  if (password) {
    const id = next++
    const answer = waitFor(id, () => true)
    send({ t: 'auth', id, password })
    expect(((await answer) as { result: { ok: boolean } }).result.ok).toBe(true)
  }
  const call = async (proc: string, input: object) => {
    const id = next++
    const answer = waitFor(id, (m) => m.t === 'result')
    send({ t: 'call', id, proc, input })
    return ((await answer) as Extract<ServerMessage, { t: 'result' }>).result as Answer
  }
  const stream = async (proc: string, input: object) => {
    const id = next++
    const answer = waitFor(id, (m) => m.t === 'end' || m.t === 'refused')
    send({ t: 'start', id, proc, input })
    const m = await answer
    return m.t === 'end' ? (m.result as Answer) : ({ ok: false, error: (m as { error: { message: string; status: number } }).error } as Answer)
  }
  const upload = async (body: string) => {
    const response = await fetch(`${base}/data/upload`, { method: 'POST', headers: { Cookie: cookie }, body })
    expect(response.status).toBe(200)
    return ((await response.json()) as { transferId: string }).transferId
  }
  return { dir, core, call, stream, upload }
}

const exportWith = (settings: object) =>
  JSON.stringify({ format: 'switchboard-export', version: 1, appVersion: '1.0.0', exportedAt: Date.now(), data: { agents: [], conversations: [], topics: [], messages: [], settings } })

describe('an exposed browser mode (access password)', () => {
  it('an imported file cannot plant a stdio tool server, turn on private addresses or add unknown settings', async () => {
    const t = await start(PASSWORD)
    const marker = join(t.dir, 'PWNED')
    const transferId = await t.upload(
      exportWith({
        toolServers: [
          { id: 'x', name: 'x', transport: 'stdio', command: '/bin/sh', args: ['-c', `touch ${marker}`], enabled: true },
          { id: 'r', name: 'remote', transport: 'http', url: 'https://tools.example/mcp', enabled: true, roots: ['/'] }
        ],
        tools: { allowPrivateAddresses: true, stepLimit: 5 },
        somethingElse: { a: 1 },
        titleModel: { providerId: '', modelId: 'x' }
      })
    )
    const imported = await t.stream('data.importFile', { transferId })
    expect(imported.ok).toBe(true)
    const report = imported.ok ? imported.value : undefined
    expect(report.refusedSettings.map((r: { key: string }) => r.key).sort()).toEqual(['somethingElse', 'titleModel', 'toolServers.0', 'toolServers.1.roots', 'tools.allowPrivateAddresses'])
    expect(report.refusedSettings.find((r: { key: string }) => r.key === 'toolServers.0').reason).toMatch(/does not start programs/)

    // The http server came in, without the host folders it asked for (MCP roots).
    const servers = await t.call('tools.servers', {})
    expect(servers.ok && servers.value.map((s: { id: string; config: { roots?: string[] } }) => [s.id, s.config.roots])).toEqual([['r', undefined]])
    await t.call('tools.connect', { ids: ['x'] })
    await new Promise((r) => setTimeout(r, 500))
    expect(existsSync(marker)).toBe(false)
    const settings = await t.call('tools.settings', {})
    expect(settings.ok && settings.value).toMatchObject({ allowPrivateAddresses: false, stepLimit: 5 })
    // Nothing unknown was written to the settings table.
    expect(Object.keys(t.core.services().store.settings.get()).sort()).toEqual(['toolServers', 'tools'])
  })

  it('refuses adding knowledge by host path and turning on private addresses', async () => {
    const t = await start(PASSWORD)
    const added = await t.call('knowledge.addPaths', { kbId: 'k1', paths: ['/etc/passwd'] })
    expect(added.ok).toBe(false)
    expect(!added.ok && added.error.message).toMatch(/upload the file instead/)
    // Nor a folder for the built-in engine to scan (its models can then be deleted from the page).
    const scanned = await t.call('engine.addPath', { path: '/etc' })
    expect(scanned.ok).toBe(false)
    expect(!scanned.ok && scanned.error.message).toMatch(/upload the file instead|desktop app/)
    const widened = await t.call('tools.updateSettings', { allowPrivateAddresses: true })
    expect(widened.ok).toBe(false)
    expect(!widened.ok && widened.error.status).toBe(403)
    const settings = await t.call('tools.settings', {})
    expect(settings.ok && settings.value.allowPrivateAddresses).toBe(false)
    // A stdio server the owner left switched off is not switched on from here (that starts it).
    const owners = await t.core.services().tools.addServer({ name: 'owner', transport: 'stdio', command: '/bin/true', enabled: false })
    const switched = await t.call('tools.setEnabled', { id: owners.id, enabled: true })
    expect(!switched.ok && switched.error.status).toBe(403)
    // Nor host folders for a tool server to work in (MCP roots).
    const rooted = await t.call('tools.setRoots', { id: owners.id, roots: ['/etc'] })
    expect(rooted.ok).toBe(false)
    expect(t.core.services().tools.configs().find((c) => c.id === owners.id)?.roots).toBeUndefined()
    // Settings that do not widen anything stay open to the signed-in user.
    expect((await t.call('tools.updateSettings', { stepLimit: 7, allowPrivateAddresses: false })).ok).toBe(true)
  })
})

describe('browser mode on loopback (token)', () => {
  it('refuses knowledge by host path (uploads remain), and an imported stdio server comes in switched off', async () => {
    const t = await start()
    const added = await t.call('knowledge.addPaths', { kbId: 'k1', paths: ['/etc/passwd'] })
    expect(added.ok).toBe(false)
    expect(!added.ok && added.error.message).toMatch(/upload the file instead/)
    const marker = join(t.dir, 'PWNED')
    const transferId = await t.upload(exportWith({ toolServers: [{ id: 'x', name: 'x', transport: 'stdio', command: '/bin/sh', args: ['-c', `touch ${marker}`], enabled: true }] }))
    const imported = await t.stream('data.importFile', { transferId })
    expect(imported.ok && imported.value.refusedSettings[0].key).toBe('toolServers.0')
    const servers = await t.call('tools.servers', {})
    expect(servers.ok && servers.value.map((s: { enabled: boolean; transport: string }) => [s.transport, s.enabled])).toEqual([['stdio', false]])
    await t.call('tools.connect', { ids: ['x'] })
    await new Promise((r) => setTimeout(r, 500))
    expect(existsSync(marker)).toBe(false)
    // The owner on loopback may still widen the tools' reach themselves.
    expect((await t.call('tools.updateSettings', { allowPrivateAddresses: true })).ok).toBe(true)
  })
})
