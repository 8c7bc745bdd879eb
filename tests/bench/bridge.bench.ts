import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket, { WebSocketServer } from 'ws'
import { createBridgeClient } from '../../src/shared/bridge/client'
import type { Contract } from '../../src/shared/bridge/contract'
import type { ClientMessage, MessagePort, ServerMessage } from '../../src/shared/bridge/protocol'
import { appPathFor, startBrowserServer } from '../../src/server/server'
import { report } from './util'
import { startTestCore } from '../integration/test-core'

const TOKEN = 'bench-token-0123456789abcdef'

async function perCall(n: number, fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 200; i++) await fn()
  const start = performance.now()
  for (let i = 0; i < n; i++) await fn()
  return (performance.now() - start) / n
}

function wsPort(url: string): Promise<{ port: MessagePort<ServerMessage, ClientMessage>; ws: WebSocket }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url)
    ws.once('error', reject)
    ws.once('open', () => {
      const listeners = new Set<(m: ServerMessage) => void>()
      ws.on('message', (data) => {
        const message = JSON.parse(String(data)) as ServerMessage
        for (const l of listeners) l(message)
      })
      resolve({
        ws,
        port: {
          send: (m) => ws.send(JSON.stringify(m)),
          onMessage: (l) => {
            listeners.add(l)
            return () => listeners.delete(l)
          }
        }
      })
    })
  })
}

/** Bridge: call round-trips (in-process and WebSocket) and stream throughput over WebSocket, next to raw `ws`. */
export default async function bench() {
  const dir = mkdtempSync(join(tmpdir(), 'sb-bench-'))
  mkdirSync(join(dir, 'renderer'))
  writeFileSync(join(dir, 'renderer', 'index.html'), '<!doctype html>')
  const { core, client: inProc } = await startTestCore('sb-bench-', { dataDir: join(dir, 'data') })

  // Raw ws baseline: an echo server, and a server that pushes N small messages.
  const raw = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  raw.on('connection', (socket) =>
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { t: string; n?: number }
      if (message.t === 'flood') {
        for (let n = 0; n < message.n!; n++) socket.send(JSON.stringify({ n }))
        socket.send(JSON.stringify({ t: 'end' }))
      } else socket.send(String(data))
    })
  )
  await new Promise((r) => raw.once('listening', r))
  const rawAddress = raw.address() as { port: number }
  const rawWs = await new Promise<WebSocket>((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${rawAddress.port}`)
    ws.once('open', () => resolve(ws))
  })
  const rawEcho = () =>
    new Promise<void>((resolve) => {
      rawWs.once('message', () => resolve())
      rawWs.send(JSON.stringify({ t: 'echo', value: 'ping' }))
    })

  // In-process.
  const inProcMs = await perCall(20_000, () => inProc.call('diag.echo', { value: 'ping' }))
  const directMs = await perCall(20_000, async () => ({ value: 'ping' }))

  // WebSocket through the real browser-mode server.
  const server = await startBrowserServer({ core, staticDir: join(dir, 'renderer'), host: '127.0.0.1', port: 0, token: TOKEN })
  const base = new URL(server.url)
  // The bridge lives under the app's own path, as the page reaches it (a path of its own per token).
  const { port, ws } = await wsPort(`ws://${base.host}${appPathFor(TOKEN)}bridge?token=${TOKEN}`)
  const client = createBridgeClient<Contract>(port)
  const wsMs = await perCall(3_000, () => client.call('diag.echo', { value: 'ping' }))
  const rawMs = await perCall(3_000, rawEcho)

  console.log('Call round trip (mean of many sequential calls)')
  report('in-process bridge call', inProcMs, 'plain async function', directMs, 'ms', '< 0.2 ms')
  report('WebSocket bridge call', wsMs, 'raw ws echo', rawMs, 'ms')

  // Stream throughput.
  const N = 200_000
  const streamStart = performance.now()
  await new Promise<void>((resolve) => {
    let received = 0
    client.stream('diag.count', { count: N }, {
      onEvents: (events) => {
        received += events.length
      },
      onEnd: () => {
        if (received !== N) throw new Error(`lost events: ${received}/${N}`)
        resolve()
      }
    })
  })
  const bridgeRate = N / ((performance.now() - streamStart) / 1000)
  const rawStart = performance.now()
  await new Promise<void>((resolve) => {
    let received = 0
    const onMessage = (data: WebSocket.RawData) => {
      const m = JSON.parse(String(data)) as { t?: string }
      if (m.t === 'end') {
        rawWs.off('message', onMessage)
        if (received !== N) throw new Error('raw lost events')
        resolve()
      } else received++
    }
    rawWs.on('message', onMessage)
    rawWs.send(JSON.stringify({ t: 'flood', n: N }))
  })
  const rawRate = N / ((performance.now() - rawStart) / 1000)
  console.log(`Stream of ${N.toLocaleString('en')} small events over WebSocket`)
  report('bridge stream events/s (core → client)', bridgeRate, 'raw ws, one message per event', rawRate, 'per-s', '≥ 50,000/s')

  ws.close()
  rawWs.close()
  raw.close()
  await server.close()
  await core.close()
}
