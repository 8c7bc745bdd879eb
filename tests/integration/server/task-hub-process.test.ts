import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import WebSocket from 'ws'
import { appPathFor } from '../../../src/server/server'
import { createBridgeClient, type BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { ClientMessage, ServerMessage } from '../../../src/shared/bridge/protocol'
import { TASK_STREAMS, type ActiveTask } from '../../../src/shared/bridge/procedures/tasks'
import type { Result } from '../../../src/shared/errors/app-error'
import { messageText, type Message } from '../../../src/shared/data/message'
import { chatChunks, startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai'
import { startFakeImages, type FakeImages } from '../../fixtures/fake-images/index'
import { startFakeOllama, type FakeOllama } from '../../fixtures/fake-ollama'

// Background work is one abstraction (issue 19): a real `serve` process runs a chat reply, an
// image task and a model pull at once; `tasks.active` lists all three, and a client that goes
// away mid-stream (a reload) and comes back finds them there and follows each to its end.

const TOKEN = 'task-hub-token-0123456789abcdef'
const KEY = 'sk-task-hub-test-0123456789'
const PIECES = Array.from({ length: 60 }, (_, i) => `w${i} `)

let chat: FakeOpenAI
let images: FakeImages
let ollama: FakeOllama
let server: ChildProcess
let origin = ''
const sockets: WebSocket[] = []

async function connect(): Promise<BridgeClient<Contract>> {
  const ws = new WebSocket(`${origin.replace('http', 'ws')}${appPathFor(TOKEN)}bridge?token=${TOKEN}`, { headers: { Origin: origin } })
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('error', reject)
  })
  sockets.push(ws)
  return createBridgeClient<Contract>({
    send: (message: ClientMessage) => ws.send(JSON.stringify(message)),
    onMessage: (listener: (message: ServerMessage) => void) => {
      const on = (data: WebSocket.RawData) => listener(JSON.parse(String(data)) as ServerMessage)
      ws.on('message', on)
      return () => ws.off('message', on)
    }
  })
}

function ok<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`${result.error.errorType}: ${result.error.message}`)
  return result.value
}

beforeAll(async () => {
  chat = await startFakeOpenAI()
  images = await startFakeImages()
  ollama = await startFakeOllama({ pacing: { linesPerLayer: 60, totalMs: 4_000 } })
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-task-hub-'))
  server = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts', '--port', '0', '--token', TOKEN, '--data-dir', dataDir], {
    env: { ...process.env, SWITCHBOARD_ACCESS_PASSWORD: '' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  origin = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += String(chunk)
      const url = /Open (http:\/\/\S+)/.exec(output)?.[1]
      if (url) resolve(new URL(url).origin)
    }
    server.stdout!.on('data', onData)
    server.stderr!.on('data', onData)
    server.once('exit', (code) => reject(new Error(`serve exited ${code}: ${output}`)))
  })
}, 60_000)

afterAll(async () => {
  for (const ws of sockets) ws.close()
  if (server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve))
    server.kill('SIGTERM')
    await exited
  }
  await Promise.all([chat.close(), images.close(), ollama.close()])
})

describe('the task hub in a real server process', () => {
  it('lists a running reply, image task and pull; a client that reloads mid-stream re-follows each to its end', async () => {
    const first = await connect()
    await vi.waitFor(async () => expect(ok(await first.call('app.info', {})).name).toBe('Switchboard'))
    await vi.waitFor(async () => expect(ok(await first.call('tasks.active', {}))).toEqual([]), { timeout: 20_000 })
    ok(await first.call('providers.update', { providerId: 'openai', baseURL: chat.url }))
    ok(await first.call('providers.setKey', { providerId: 'openai', apiKey: KEY }))
    ok(await first.call('providers.update', { providerId: 'bfl', baseURL: images.origin }))
    ok(await first.call('providers.setKey', { providerId: 'bfl', apiKey: KEY }))
    ok(await first.call('local.setBaseUrl', { kind: 'ollama', baseUrl: `${ollama.url}/api` }))

    chat.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(PIECES), delayMs: 40 })
    let released = false
    images.setDefault('POST /v1/flux', (req) => ({ json: { id: req.path, polling_url: `${images.origin}/poll${req.path}` } }))
    images.setDefault('GET /poll/', () => (released ? { json: { status: 'Ready', result: { sample: `${images.origin}/files/out.png` } } } : { json: { status: 'Pending' } }))

    let chatEvents = 0
    first.stream('chat.send', { text: 'a long answer please', providerId: 'openai', modelId: 'gpt-4o-mini' }, { onEvent: () => chatEvents++ })
    first.stream('images.generate', { providerId: 'bfl', modelId: 'flux-dev', params: { prompt: 'a quiet harbour' } }, {})
    const pull = ok(await first.call('local.pull.start', { model: 'smollm2:135m' }))
    await vi.waitFor(() => expect(chatEvents).toBeGreaterThan(3), { timeout: 20_000 })

    const listed = ok(await first.call('tasks.active', {}))
    expect(listed.map((t) => t.kind).sort()).toEqual(['chat', 'image', 'pull'])
    expect(ok(await first.call('tasks.active', { kind: 'pull' }))).toEqual([expect.objectContaining({ id: pull.taskId, meta: expect.objectContaining({ pullId: pull.id, model: 'smollm2:135m' }) })])

    // The window reloads: its socket closes; the work goes on in the core.
    sockets[0]!.close()
    const second = await connect()
    const again = ok(await second.call('tasks.active', {}))
    expect(again.map((t) => t.id).sort()).toEqual(listed.map((t) => t.id).sort())

    const follow = (task: ActiveTask) =>
      new Promise<{ events: unknown[]; end: Result<unknown> }>((resolve) => {
        const events: unknown[] = []
        if (task.kind === 'knowledge') throw new Error('not started here')
        second.attach(TASK_STREAMS[task.kind], task.id, { onEvent: (e: unknown) => events.push(e), onEnd: (end: Result<unknown>) => resolve({ events, end }) } as never, 0)
      })
    const byKind = Object.fromEntries(again.map((t) => [t.kind, follow(t)]))
    released = true

    const reply = await byKind['chat']!
    expect(messageText(ok(reply.end as Result<Message>).content)).toBe(PIECES.join(''))
    const image = await byKind['image']!
    expect(ok(image.end as Result<{ status: string }>).status).toBe('Success')
    const pulled = await byKind['pull']!
    expect(ok(pulled.end as Result<{ phase: string }>).phase).toBe('success')
    // Replayed from the first event: a re-followed task shows everything it did before the reload.
    expect((reply.events[0] as { type: string }).type).toBe('reply')
    expect((image.events[0] as { type: string }).type).toBe('created')
    expect(ok(await second.call('tasks.active', {}))).toEqual([])
  }, 90_000)
})
