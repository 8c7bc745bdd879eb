import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hashedEmbeddingsReply } from '../../fixtures/fake-embeddings'
import { startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai'
import { ok, startCore, type TestCore } from './helpers'

// Web pages as knowledge (issue 22), read with the read-a-web-page tool (issue 21): the article
// becomes a Markdown file whose source is its address, indexed like any other; the tools' URL
// policy applies (a loopback address needs "allow private addresses").
let web: Server
let origin: string
let fake: FakeOpenAI
let t: TestCore
let kbId: string

const PAGE = `<!doctype html><html><head><title>Lighthouse keeping</title></head><body><nav>home about contact</nav>
<article><h1>Lighthouse keeping</h1><p>The keeper of the Fastnet lighthouse trims the lamp wick every evening at dusk. ${'Keepers log the weather each hour. '.repeat(15)}</p>
<p>Fog signals sound every thirty seconds when visibility drops below two miles.</p></article><footer>© someone</footer></body></html>`

beforeAll(async () => {
  web = createServer((req, res) => {
    if (req.url === '/lighthouse') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE)
    else res.writeHead(404).end('missing')
  })
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r))
  origin = `http://127.0.0.1:${(web.address() as AddressInfo).port}`
  fake = await startFakeOpenAI()
  fake.setDefault('/embeddings', hashedEmbeddingsReply())
  t = await startCore(fake.url)
  kbId = ok(await t.client.call('knowledge.create', { name: 'Coast', providerId: 'openai', modelId: 'text-embedding-3-small' })).id
})
afterAll(async () => {
  await t.core.close()
  await fake.close()
  await new Promise<void>((r) => web.close(() => r()))
})

describe('web pages in a knowledge base', () => {
  it('a private address is refused under the default policy, and nothing is added', async () => {
    const r = await t.client.call('knowledge.addUrl', { kbId, url: `${origin}/lighthouse` })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error.errorType).toBe('PluginApiParamsError')
    expect(ok(await t.client.call('knowledge.files', { kbId }))).toEqual([])
  })

  it('allowed: the article is kept as Markdown with its address as the source, indexed and found', async () => {
    ok(await t.client.call('tools.updateSettings', { allowPrivateAddresses: true }))
    const file = ok(await t.client.call('knowledge.addUrl', { kbId, url: `${origin}/lighthouse` }))
    expect(file).toMatchObject({ name: 'Lighthouse keeping.md', source: `${origin}/lighthouse` })
    await t.core.services().knowledge.idle(kbId)
    const [indexed] = ok(await t.client.call('knowledge.files', { kbId }))
    expect(indexed!.status).toBe('Success')
    const hits = ok(await t.client.call('knowledge.search', { kbIds: [kbId], query: 'how often do fog signals sound' }))
    expect(hits[0]!.fileName).toBe('Lighthouse keeping.md')
    expect(hits.map((h) => h.text).join('\n')).toContain('Fog signals sound every thirty seconds')
    // The page's chrome (navigation, footer) is not part of what was kept.
    expect(hits.map((h) => h.text).join('\n')).not.toContain('home about contact')
  })

  it('a page that is not there is an error, not a file', async () => {
    const r = await t.client.call('knowledge.addUrl', { kbId, url: `${origin}/nowhere` })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error.message).toMatch(/404/)
    expect(ok(await t.client.call('knowledge.files', { kbId }))).toHaveLength(1)
  })
})
