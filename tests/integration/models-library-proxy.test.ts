import { createServer, request, type Server } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ModelsLibrary } from '../../src/core/models-library/library-service'
import { startFakeHfHub, type FakeHub } from '../fixtures/fake-hf-hub/server'
import { paddedModel } from '../fixtures/gguf-headers/write-gguf'

/** A tiny forward proxy on loopback: CONNECT tunnels and absolute-URI requests, each one recorded. */
async function startProxy(): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = []
  const server: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`)
    const target = new URL(req.url!)
    const upstream = request({ host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode!, up.headers)
      up.pipe(res)
    })
    req.pipe(upstream)
  })
  server.on('connect', (req, socket, head) => {
    seen.push(`CONNECT ${req.url}`)
    const [host, port] = req.url!.split(':')
    const upstream = connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      upstream.write(head)
      upstream.pipe(socket)
      socket.pipe(upstream)
    })
    upstream.on('error', () => socket.destroy())
    socket.on('error', () => upstream.destroy())
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r())))
  }
}

const model = paddedModel(1024 * 1024, 3)
let hub: FakeHub | undefined
let proxy: Awaited<ReturnType<typeof startProxy>> | undefined
const libs: ModelsLibrary[] = []
afterEach(async () => {
  for (const l of libs.splice(0)) await l.close()
  await hub?.close()
  await proxy?.close()
})

async function setup(env: (proxyUrl: string) => NodeJS.ProcessEnv = () => ({})) {
  hub = await startFakeHfHub([{ id: 'acme/Tiny-GGUF', files: [{ path: 'tiny-Q4_K_M.gguf', content: model }] }])
  proxy = await startProxy()
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-lib-proxy-'))
  const lib = new ModelsLibrary({ dataDir, folders: { dataDir }, memory: () => ({ freeRamBytes: 16e9 }), retryDelayMs: 10, env: env(proxy.url) })
  libs.push(lib)
  return lib
}

const hubHost = () => new URL(hub!.url).host

describe('the model library through a proxy', () => {
  it('the proxy setting carries search, the header read and the download', async () => {
    const lib = await setup()
    await lib.setSettings({ hubEndpoint: hub!.url, proxy: proxy!.url })
    expect((await lib.settings()).proxy).toBe(proxy!.url)
    const found = await lib.search('tiny', ['hf'])
    expect(found.entries.map((e) => e.id)).toContain('acme/Tiny-GGUF')
    const { snapshot } = await lib.pull('hf:acme/Tiny-GGUF')
    const done = await lib.downloads.wait(snapshot.id)
    expect(done.phase, done.error?.message).toBe('success')
    expect(existsSync(done.path!)).toBe(true)
    expect(proxy!.seen.length).toBeGreaterThan(0)
    expect(proxy!.seen.every((s) => s.includes(hubHost()))).toBe(true)
  })

  it('HTTP_PROXY / HTTPS_PROXY are honoured when no proxy is set, NO_PROXY too', async () => {
    const lib = await setup((url) => ({ HTTP_PROXY: url, HTTPS_PROXY: url }))
    await lib.setSettings({ hubEndpoint: hub!.url })
    await lib.search('tiny', ['hf'])
    expect(proxy!.seen.length).toBeGreaterThan(0)
    await lib.close()
    await hub?.close()
    await proxy?.close()
    const direct = await setup((url) => ({ HTTP_PROXY: url, NO_PROXY: '127.0.0.1' }))
    await direct.setSettings({ hubEndpoint: hub!.url })
    expect((await direct.search('tiny', ['hf'])).entries.map((e) => e.id)).toContain('acme/Tiny-GGUF')
    expect(proxy!.seen).toEqual([])
  })

  it('refuses a proxy address that is not http(s), naming the form it wants', async () => {
    const lib = await setup()
    await expect(lib.setSettings({ proxy: 'socks5://127.0.0.1:1080' })).rejects.toThrow(/http:\/\/ or https:\/\/ address/)
    await expect(lib.setSettings({ proxy: 'not a url' })).rejects.toThrow(/use http:\/\/host:port/)
  })
})
