import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createProviderRuntime } from '../../../src/core/runtime/registry'
import { chatChunks } from '../../fixtures/fake-openai/index'
import { SECRET, collect, textOf } from './helpers'

// A stream read to its [DONE] leaves the upstream's connection open for the next call, as the
// SDK's own reader does: cancelling the body there closed the socket, so every short call (the
// local API's agents and editors) paid a new TCP connection.
let server: Server
let url: string
let connections = 0

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      // The [DONE] message and the body's end in separate writes, as a server flushing each event sends them.
      for (const chunk of chatChunks(['hi'])) res.write(`data: ${JSON.stringify(chunk)}\n\n`)
      res.write('data: [DONE]\n\n')
      setTimeout(() => res.end(), 5)
    })
  })
  server.on('connection', () => connections++)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

it('three streamed calls in a row use one upstream connection', async () => {
  const runtime = createProviderRuntime('openai', { apiKey: SECRET, baseURL: url })
  for (let i = 0; i < 3; i++) {
    const events = await collect(runtime)
    expect(textOf(events)).toBe('hi')
    // The body's end is read just after the iteration ends.
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  expect(connections).toBe(1)
})
