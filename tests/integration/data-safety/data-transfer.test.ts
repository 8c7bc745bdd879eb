import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { MemoryBackend } from '../../../src/core/secrets'
import { appPathFor, startBrowserServer } from '../../../src/server/server'
import WebSocket from 'ws'
import type { StreamHandlers } from '../../../src/shared/bridge/client'
import type { Result } from '../../../src/shared/errors/app-error'
import { writeBigExport } from './big-export'
import type { TransferLimits } from '../../../src/server/data-transfer'
import { startTestCore, type TestCore } from '../test-core'

const TOKEN = 'transfer-test-token-0123456789'
const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function start(password?: string, options: { transferLimits?: TransferLimits; leftover?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'sb-transfer-'))
  if (options.leftover) {
    // As a crash in the middle of an upload leaves it.
    mkdirSync(join(dir, 'data', 'transfers'), { recursive: true })
    writeFileSync(join(dir, 'data', 'transfers', 'cut-by-a-crash-0001.json'), Buffer.alloc(1024))
  }
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  const staticDir = join(dir, 'renderer')
  mkdirSync(staticDir, { recursive: true })
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html>')
  const { core, client } = await startTestCore('sb-transfer-', { dataDir: join(dir, 'data'), mode: 'browser', secrets: { backend: new MemoryBackend() }, access: password ? { password, sessionKeys: new Set() } : undefined })
  const server = await startBrowserServer({ core, staticDir, host: '127.0.0.1', port: 0, token: TOKEN, answerDelayMs: 1, ...(options.transferLimits ? { transferLimits: options.transferLimits } : {}) })
  cleanups.push(async () => {
    await server.close()
    await core.close()
  })
  const origin = new URL(server.url).origin
  // Token mode serves the app (and so these routes) under a path derived from the token.
  return { dir, core, origin, base: `${origin}${appPathFor(TOKEN).slice(0, -1)}`, client }
}

const runStream = <R>(client: TestCore['client'], proc: string, input: object) =>
  new Promise<Result<R>>((resolve) => {
    const stream = client.stream as unknown as (p: string, i: object, h: StreamHandlers<unknown, unknown>) => void
    stream(proc, input, { onEnd: (r) => resolve(r as Result<R>), onRefused: (error) => resolve({ ok: false, error }) })
  })

const cookie = { Cookie: `switchboard_token=${TOKEN}` }

/** Signs a browser in with the password over the socket, as the unlock dialog does; returns its cookie. */
async function signedInBrowser(origin: string, password: string) {
  const browser = (await fetch(`${origin}/`)).headers.get('set-cookie')!.split(';')[0]!
  const ws = new WebSocket(`${origin.replace('http', 'ws')}${appPathFor(TOKEN)}bridge`, { headers: { Cookie: browser, Origin: origin } })
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)))
  const answer = await new Promise<{ result: { ok: boolean } }>((resolve) => {
    ws.once('message', (data) => resolve(JSON.parse(String(data)) as { result: { ok: boolean } }))
    ws.send(JSON.stringify({ t: 'auth', id: 1, password }))
  })
  expect(answer.result.ok).toBe(true)
  return { Cookie: browser, close: () => ws.close() }
}

describe('browser mode moves import and export files over authenticated HTTP', () => {
  it('uploads a file larger than a socket frame, imports it by transfer id, and downloads an export', async () => {
    const { dir, core, base, client } = await start()
    // 70 MB: more than the 64 MB WebSocket frame limit that used to drop the connection.
    const big = Buffer.alloc(70 * 1024 * 1024, 0x20)
    const bigUpload = await fetch(`${base}/data/upload`, { method: 'POST', headers: cookie, body: big })
    expect(bigUpload.status).toBe(200)
    const bigId = ((await bigUpload.json()) as { transferId: string; bytes: number }).transferId
    expect(statSync(join(dir, 'data', 'transfers', `${bigId}.json`)).size).toBe(big.length)

    const file = join(dir, 'export.json')
    writeBigExport(file, 500)
    const upload = await fetch(`${base}/data/upload`, { method: 'POST', headers: cookie, body: readFileSync(file) })
    const { transferId } = (await upload.json()) as { transferId: string }
    const imported = await runStream<{ added: { messages: number } }>(client, 'data.importFile', { transferId })
    expect(imported.ok && imported.value.added.messages).toBe(500)
    expect(core.services().store.messages.count()).toBe(500)

    const exported = await runStream<{ transferId: string; fileName: string; bytes: number }>(client, 'data.exportFile', {})
    if (!exported.ok) throw new Error(exported.error.message)
    const download = await fetch(`${base}/data/download/${exported.value.transferId}?name=${exported.value.fileName}`, { headers: cookie })
    expect(download.status).toBe(200)
    expect(download.headers.get('content-disposition')).toContain(exported.value.fileName)
    const bytes = Buffer.from(await download.arrayBuffer())
    expect(bytes.length).toBe(exported.value.bytes)
    const body = bytes.toString('utf8')
    expect((JSON.parse(body) as { data: { messages: unknown[] } }).data.messages).toHaveLength(500)
  }, 60_000)

  it('refuses without the token, from another site, and without a session when a password is set', async () => {
    const open = await start()
    expect((await fetch(`${open.base}/data/upload`, { method: 'POST', body: '{}' })).status).toBe(403)
    expect((await fetch(`${open.base}/data/upload`, { method: 'POST', body: '{}', headers: { ...cookie, Origin: 'https://evil.example' } })).status).toBe(403)

    const locked = await start('correct horse battery')
    expect((await fetch(`${locked.base}/data/upload`, { method: 'POST', body: '{}', headers: cookie })).status).toBe(401)
    const browser = await signedInBrowser(locked.origin, 'correct horse battery')
    cleanups.push(browser.close)
    expect((await fetch(`${locked.base}/data/upload`, { method: 'POST', body: '{}', headers: { Cookie: browser.Cookie, Origin: 'https://evil.example' } })).status).toBe(401)
    const ok = await fetch(`${locked.base}/data/upload`, { method: 'POST', body: '{}', headers: { Cookie: browser.Cookie } })
    expect(ok.status).toBe(200)
  })

  it('an upload is removed once its import ends (a preview keeps it), partials are swept at start-up, and the folder is capped in total', async () => {
    const { dir, base, client } = await start(undefined, { leftover: true, transferLimits: { maxUploadBytes: 1024 * 1024, maxTotalBytes: 1536 * 1024 } })
    const transfers = join(dir, 'data', 'transfers')
    expect(readdirSync(transfers)).toEqual([])

    const file = join(dir, 'export.json')
    writeBigExport(file, 20)
    const { transferId } = (await (await fetch(`${base}/data/upload`, { method: 'POST', headers: cookie, body: readFileSync(file) })).json()) as { transferId: string }
    const preview = await runStream<{ dryRun?: boolean }>(client, 'data.importFile', { transferId, dryRun: true })
    expect(preview.ok && preview.value.dryRun).toBe(true)
    expect(readdirSync(transfers)).toHaveLength(1)
    const imported = await runStream(client, 'data.importFile', { transferId })
    expect(imported.ok).toBe(true)
    expect(readdirSync(transfers)).toEqual([])

    const mb = Buffer.alloc(1024 * 1024, 0x20)
    expect((await fetch(`${base}/data/upload`, { method: 'POST', headers: cookie, body: mb })).status).toBe(200)
    const second = await fetch(`${base}/data/upload`, { method: 'POST', headers: cookie, body: mb })
    expect(second.status).toBe(507)
    expect(((await second.json()) as { error: string }).error).toMatch(/Too many uploads are waiting/)
    expect(readdirSync(transfers)).toHaveLength(1)
  }, 60_000)
})
