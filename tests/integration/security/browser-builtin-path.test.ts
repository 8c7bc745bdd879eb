import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import { appPathFor, startBrowserServer } from '../../../src/server/server'
import { isUnavailable } from '../../../src/core/unavailable'
import type { ServerMessage } from '../../../src/shared/bridge/protocol'
import { writeTinyLlamaGguf } from '../../fixtures/gguf/tiny-llama'
import { startTestCore } from '../test-core'

// An attacker knows the access password of a browser-mode Switchboard. The owner's models are the
// library (<data>/models); elsewhere on the host lies a GGUF the owner never listed, a folder and a
// file that are no models. Over the real server and socket the attacker names host paths as
// built-in models wherever a model is taken (the Local models page's load and plan, a chat, a
// competition): nothing loads, and no answer tells whether a path exists. A loopback tab (token
// mode) is held to the same rule, as it is for every other host path.
const TOKEN = 'browser-builtin-path-token-0123456789'
const PASSWORD = 'a long access password'
type Answer = { ok: true; value: unknown } | { ok: false; error: { message: string; status: number; errorType?: string } }
type Event = { type: string; data?: unknown }

let dir: string
let core: Core
let ws: WebSocket
let outside: string
let next = 1
const cleanups: Array<() => Promise<void> | void> = []

const waitFor = (id: number, done: (m: ServerMessage) => boolean, onEvent?: (e: Event) => void) =>
  new Promise<ServerMessage>((resolve) => {
    const on = (data: WebSocket.RawData) => {
      const m = JSON.parse(String(data)) as ServerMessage
      if (m.id !== id) return
      if (m.t === 'events') for (const e of m.events as Event[]) onEvent?.(e)
      if (done(m)) {
        ws.off('message', on)
        resolve(m)
      }
    }
    ws.on('message', on)
  })

async function call(proc: string, input: object): Promise<Answer> {
  const id = next++
  const answer = waitFor(id, (m) => m.t === 'result')
  ws.send(JSON.stringify({ t: 'call', id, proc, input }))
  return ((await answer) as Extract<ServerMessage, { t: 'result' }>).result as Answer
}

/** A stream's result and its errors (the reply's own and those among its events). */
async function stream(proc: string, input: object): Promise<{ result: Answer; errors: string[] }> {
  const id = next++
  const errors: string[] = []
  const answer = waitFor(id, (m) => m.t === 'end' || m.t === 'refused', (e) => {
    if (e.type === 'error') errors.push((e.data as { message: string }).message)
  })
  ws.send(JSON.stringify({ t: 'start', id, proc, input }))
  const m = await answer
  const result = (m.t === 'end' ? m.result : { ok: false, error: (m as Extract<ServerMessage, { t: 'refused' }>).error }) as Answer
  const failed = result.ok ? (result.value as { error?: { message: string } }).error : result.error
  if (failed) errors.push(failed.message)
  return { result, errors }
}

/** The answer with the name taken out of it (it says the name back), so answers for two names compare. */
const without = (answer: unknown, name: string): string => JSON.stringify(answer).split(JSON.stringify(name).slice(1, -1)).join('<name>')

const loaded = async () => {
  const engine = core.services().engine
  if (isUnavailable(engine)) throw new Error(engine.reason)
  return (await engine.ps()).models.map((m) => m.path)
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-sec-browser-builtin-'))
  const dataDir = join(dir, 'data')
  mkdirSync(join(dataDir, 'models'), { recursive: true })
  writeTinyLlamaGguf(join(dataDir, 'models', 'tiny.gguf'))
  mkdirSync(join(dir, 'outside'))
  outside = join(dir, 'outside', 'secret.gguf')
  writeTinyLlamaGguf(outside)
  writeFileSync(join(dir, 'outside', 'notes.gguf'), 'not a model')
  mkdirSync(join(dir, 'renderer'))
  writeFileSync(join(dir, 'renderer', 'index.html'), '<!doctype html>')
  await serve(PASSWORD)
}, 60_000)

/** The core and its browser server on the test's data folder; with a password, signed in with it (no token). */
async function serve(password?: string): Promise<void> {
  for (const c of cleanups.splice(0).reverse()) await c()
  const staticDir = join(dir, 'renderer')
  const dataDir = join(dir, 'data')
  core = (await startTestCore('sb-sec-browser-builtin-', { dataDir, mode: 'browser', secrets: { backend: new MemoryBackend() }, access: password ? { password, sessionKeys: new Set() } : undefined })).core
  const server = await startBrowserServer({ core, staticDir, host: '127.0.0.1', port: 0, token: TOKEN, answerDelayMs: 1 })
  cleanups.push(async () => {
    await server.close()
    await core.close()
  })
  const origin = new URL(server.url).origin
  // The password page: the attacker has no token, only the password.
  const cookie = password ? (await fetch(`${origin}/`)).headers.get('set-cookie')!.split(';')[0]! : `switchboard_token=${TOKEN}`
  ws = new WebSocket(`${origin.replace('http', 'ws')}${appPathFor(TOKEN).slice(0, -1)}/bridge`, { headers: { Cookie: cookie, Origin: origin } })
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)))
  cleanups.push(() => ws.close())
  if (!password) return
  const id = next++
  const authed = waitFor(id, () => true)
  ws.send(JSON.stringify({ t: 'auth', id, password }))
  expect(((await authed) as { result: { ok: boolean } }).result.ok).toBe(true)
}

afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
  rmSync(dir, { recursive: true, force: true })
})

describe('a password-mode browser client reaches only the listed built-in models, by name', () => {
  it('control: the library model loads, plans and chats by name', async () => {
    expect(await call('engine.plan', { model: 'tiny' })).toMatchObject({ ok: true, value: { modelId: 'tiny' } })
    expect(await call('engine.load', { model: 'tiny' })).toMatchObject({ ok: true, value: { modelId: 'tiny' } })
    const chat = await stream('chat.send', { text: 'Hi', providerId: 'builtin', modelId: 'tiny' })
    expect(chat.errors).toEqual([])
    expect(chat.result.ok).toBe(true)
    await call('engine.unload', { model: 'tiny' })
  }, 120_000)

  it('refuses a GGUF on the host the owner never listed, by any spelling of its path, and loads nothing', async () => {
    for (const model of [outside, outside.slice(1), join(dir, 'data', 'models', '..', '..', 'outside', 'secret.gguf')]) {
      for (const proc of ['engine.load', 'engine.plan']) {
        const answer = await call(proc, { model })
        expect(answer.ok, `${proc} ${model}`).toBe(false)
        expect(!answer.ok && answer.error.status, `${proc} ${model}`).toBe(404)
      }
      const chat = await stream('chat.send', { text: 'Hi', providerId: 'builtin', modelId: model })
      expect(chat.errors.join(' '), model).toMatch(/no model/)
    }
    const competition = await call('competition.start', { text: 'Hi', models: [{ providerId: 'builtin', modelId: outside }, { providerId: 'builtin', modelId: 'tiny' }] })
    expect(competition.ok).toBe(true)
    const conversationId = (competition as { value: { conversation: { id: string } } }).value.conversation.id
    type Stored = { role: string; modelId?: string; status: string; error?: { status: number } }
    let replies: Stored[] = []
    for (let i = 0; i < 600; i++) {
      const messages = await call('chat.messages', { conversationId })
      replies = (messages as { value: Stored[] }).value.filter((m) => m.role === 'assistant')
      if (replies.length === 2 && replies.every((m) => m.status !== 'streaming')) break
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(replies.find((m) => m.modelId === outside)).toMatchObject({ status: 'error', error: { status: 404 } })
    expect(replies.find((m) => m.modelId === 'tiny')?.status).toBe('complete')
    expect(await loaded()).not.toContain(outside)
  }, 120_000)

  it('answers the same for a host path that exists and one that does not: a model, a non-model, a folder, a system file', async () => {
    const missingPath = join(dir, 'outside', 'nothing-here.gguf')
    for (const proc of ['engine.load', 'engine.plan']) {
      const missing = without(await call(proc, { model: missingPath }), missingPath)
      for (const path of [outside, join(dir, 'outside', 'notes.gguf'), join(dir, 'outside'), '/etc/hostname', '/etc/passwd.gguf']) {
        expect(without(await call(proc, { model: path }), path), `${proc} ${path}`).toEqual(missing)
      }
    }
    const chatMissing = await stream('chat.send', { text: 'Hi', providerId: 'builtin', modelId: missingPath })
    const chatThere = await stream('chat.send', { text: 'Hi', providerId: 'builtin', modelId: outside })
    expect(without(chatThere.errors, outside)).toEqual(without(chatMissing.errors, missingPath))
  }, 120_000)

  it('the next good call still chats', async () => {
    const chat = await stream('chat.send', { text: 'Hi', providerId: 'builtin', modelId: 'tiny' })
    expect(chat.errors).toEqual([])
    expect(await loaded()).toEqual([join(dir, 'data', 'models', 'tiny.gguf')])
  }, 120_000)
})

describe('a loopback browser tab (token mode) names no host path either, as for every other host path', () => {
  beforeAll(() => serve(), 60_000)

  it('plans and loads the listed model by name, and answers a host path as a name the lists lack', async () => {
    expect(await call('engine.plan', { model: 'tiny' })).toMatchObject({ ok: true, value: { modelId: 'tiny' } })
    const missingPath = join(dir, 'outside', 'nothing-here.gguf')
    for (const proc of ['engine.load', 'engine.plan']) {
      const missing = await call(proc, { model: missingPath })
      expect(!missing.ok && missing.error.status).toBe(404)
      expect(without(await call(proc, { model: outside }), outside)).toEqual(without(missing, missingPath))
    }
    expect(await loaded()).not.toContain(outside)
  }, 60_000)
})
