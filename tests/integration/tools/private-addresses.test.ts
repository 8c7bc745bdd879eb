import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import { isPrivateAddress } from '../../../src/core/tools/builtin/address-policy'
import { readWebPage } from '../../../src/core/tools/builtin/read-web-page'
import type { ToolCall } from '../../../src/core/runtime/types'
import type { OfferedTool } from '../../../src/core/tools/tool-service'
import { startTestCore, type TestCore } from '../test-core'

// The web tools' private-address policy, tried the way an attacker would: every spelling of a
// loopback, link-local or private address, against a real loopback service that counts what
// reaches it. Nothing may reach it while private addresses are off.
let web: Server
let port: number
let hits = 0

beforeAll(async () => {
  web = createServer((_req, res) => {
    hits++
    res.writeHead(200, { 'content-type': 'text/plain' }).end('local secret')
  })
  // Both stacks: 127.0.0.1, ::1, 0.0.0.0 and [::] all land here.
  await new Promise<void>((r) => web.listen(0, '::', r))
  port = (web.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((r) => web.close(() => r())))

const SPELLINGS = [
  '127.0.0.1',
  '127.0.0.1.',
  '2130706433',
  '0x7f000001',
  '0x7f.0.0.1',
  '0177.0.0.1',
  '017700000001',
  '127.1',
  '127.0.1',
  '0.0.0.0',
  '0',
  'localhost',
  'localhost.',
  'LOCALHOST',
  '[::1]',
  '[::]',
  '[0:0:0:0:0:0:0:1]',
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '[0:0:0:0:0:ffff:7f00:1]',
  '[0000:0000:0000:0000:0000:FFFF:7F00:0001]',
  '[::127.0.0.1]',
  '[64:ff9b::127.0.0.1]',
  '[64:ff9b::7f00:1]',
  '[2002:7f00:1::]',
  '[::ffff:a9fe:a9fe]',
  '[::ffff:169.254.169.254]',
  '169.254.169.254',
  '0xa9fea9fe',
  '10.0.0.1',
  '192.168.1.1',
  '172.16.0.1',
  '100.64.0.1',
  '[fe80::1]',
  '[fd00::1]',
  '[fc00::1]',
  '[ff02::1]'
]

describe('the private-address check', () => {
  it.each(SPELLINGS)('refuses http://%s and never connects to it', async (host) => {
    const before = hits
    // A name may also simply not resolve here (localhost. on some systems): refused either way.
    const refusal = host === 'localhost.' ? /PluginApiParamsError|PluginGatewayError/ : /PluginApiParamsError/
    await expect(readWebPage({ url: `http://${host}:${port}/` }, { allowPrivate: false })).rejects.toMatchObject({ error: { errorType: expect.stringMatching(refusal) } })
    expect(hits).toBe(before)
  })

  it('checks the address a name resolves to when connecting: a name pointing here, or one answer of several, is refused', async () => {
    const before = hits
    const resolveTo = (addresses: string[]) => async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
    for (const answer of [['127.0.0.1'], ['::ffff:127.0.0.1'], ['203.0.113.9', '127.0.0.1'], ['::1']])
      await expect(readWebPage({ url: `http://rebound.example:${port}/` }, { allowPrivate: false, resolve: resolveTo(answer) })).rejects.toMatchObject({ error: { errorType: 'PluginApiParamsError' } })
    expect(hits).toBe(before)
  })

  it('with private addresses allowed, the same service is read', async () => {
    const page = await readWebPage({ url: `http://[::ffff:127.0.0.1]:${port}/` }, { allowPrivate: true })
    expect(page.markdown).toContain('local secret')
  })

  it('classifies parsed addresses, with the IPv4 inside mapped, NAT64 and 6to4 forms', () => {
    for (const a of ['::ffff:7f00:1', '::ffff:a9fe:a9fe', '64:ff9b::a00:1', '2002:c0a8:101::1', '::', '::1', '0.0.0.0', '255.255.255.255', 'fe80::1%eth0', 'not an address', '198.18.0.1'])
      expect(isPrivateAddress(a), a).toBe(true)
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1']) expect(isPrivateAddress(a), a).toBe(false)
  })
})

describe('through the app in browser mode, default settings', () => {
  let app: TestCore
  let core: Core
  beforeAll(async () => {
    app = await startTestCore('sb-private-', { mode: 'browser', secrets: { backend: new MemoryBackend() } })
    core = app.core
  })
  afterAll(() => app.close())

  it('knowledge "add web page" and the model’s read_web_page tool refuse a mapped loopback address', async () => {
    const before = hits
    const kb = await core.router.call('knowledge.create', { name: 'Web', providerId: 'openai', modelId: 'text-embedding-3-small' })
    const kbId = kb.ok ? (kb.value as { id: string }).id : ''
    for (const host of ['[::ffff:127.0.0.1]', '[0:0:0:0:0:ffff:7f00:1]', '[::ffff:a9fe:a9fe]']) {
      const added = await core.router.call('knowledge.addUrl', { kbId, url: `http://${host}:${port}/` })
      expect(added.ok).toBe(false)
      const offered = { exposedName: 'read_web_page', serverId: 'builtin', serverName: 'Built-in', tool: 'read_web_page', chatTool: {} } as unknown as OfferedTool
      const call = { id: 'c1', type: 'function', function: { name: 'read_web_page', arguments: JSON.stringify({ url: `http://${host}:${port}/` }) } } as unknown as ToolCall
      const { result } = await core.services().tools.execute(offered, call, { messageId: 'm1', signal: new AbortController().signal })
      expect(result).toMatchObject({ isError: true, errorType: 'PluginApiParamsError' })
    }
    expect(hits).toBe(before)
  })
})
