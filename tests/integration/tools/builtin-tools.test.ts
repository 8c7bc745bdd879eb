import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readWebPage } from '../../../src/core/tools/builtin/read-web-page'
import { isPrivateAddress } from '../../../src/core/tools/builtin/fetch-policy'
import { webSearch } from '../../../src/core/tools/builtin/web-search'
import { startFakeToolProvider, type Decision, type FakeToolProvider, type ToolTurn } from '../../fixtures/fake-tool-provider'
import { ok, sendAndAnswer, startCore, type TestCore } from './helpers'

// Built-in tools against a local web server: a SearXNG instance answering its JSON format,
// and pages to read. The loopback address doubles as "a private address" for the URL policy.
let web: Server
let origin: string
const searches: string[] = []

const ARTICLE = `<!doctype html><html><head><title>Otters</title></head><body><nav>menu menu menu</nav>
<article><h1>Sea otters</h1><p>Sea otters hold hands while they sleep so they do not drift apart. ${'They are fascinating animals. '.repeat(20)}</p>
<p>They use <strong>stones</strong> as tools.</p></article><footer>footer</footer></body></html>`

beforeAll(async () => {
  web = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    if (url.pathname === '/search') {
      searches.push(`${url.searchParams.get('q')}|${url.searchParams.get('format')}`)
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ query: url.searchParams.get('q'), results: [
        { url: 'https://example.org/otters', title: 'Otter facts', content: 'Otters hold hands.', engine: 'duckduckgo' },
        { url: 'https://example.net/sleep', title: 'How otters sleep', content: 'Rafts of otters.', engine: 'bing' },
        { url: 'javascript:alert(1)', title: 'hostile', content: 'x' }
      ] }))
    } else if (url.pathname === '/article') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE)
    } else if (url.pathname === '/huge') {
      res.writeHead(200, { 'content-type': 'text/html' })
      const chunk = `<p>${'z'.repeat(64 * 1024)}</p>`
      let sent = 0
      const pump = () => {
        while (sent < 8 * 1024 * 1024) {
          sent += chunk.length
          if (!res.write(chunk)) return res.once('drain', pump)
        }
        res.end()
      }
      pump()
    } else if (url.pathname === '/redirect-to-file') {
      res.writeHead(302, { location: 'file:///etc/passwd' }).end()
    } else res.writeHead(404).end('no')
  })
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r))
  origin = `http://127.0.0.1:${(web.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((r) => web.close(() => r())))

describe('web search', () => {
  it('SearXNG JSON: results, citations, unsafe links dropped', async () => {
    const found = await webSearch({ query: 'otters sleeping' }, { provider: 'searxng', url: origin })
    expect(searches.at(-1)).toBe('otters sleeping|json')
    expect(found.citations).toEqual([
      { title: 'Otter facts', url: 'https://example.org/otters' },
      { title: 'How otters sleep', url: 'https://example.net/sleep' }
    ])
    expect(found.text).toContain('[1] Otter facts')
  })

  it('a provider that needs a key says so (PluginSettingsInvalid)', async () => {
    await expect(webSearch({ query: 'x' }, { provider: 'tavily' })).rejects.toMatchObject({ error: { errorType: 'PluginSettingsInvalid' } })
    await expect(webSearch({ query: 'x' }, { provider: 'searxng' })).rejects.toMatchObject({ error: { errorType: 'PluginSettingsInvalid' } })
  })

  it('each provider is asked in its own format', async () => {
    const seen: { url: string; init?: RequestInit }[] = []
    const fakeFetch = (async (url: URL | string, init?: RequestInit) => {
      seen.push({ url: String(url), ...(init ? { init } : {}) })
      return new Response(JSON.stringify({ results: [], web: { results: [] }, data: [], items: [] }), { headers: { 'content-type': 'application/json' } })
    }) as typeof fetch
    for (const provider of ['tavily', 'brave', 'exa', 'jina', 'google'] as const) await webSearch({ query: 'q' }, { provider, apiKey: 'k-123', googleCx: 'cx-1' }, { fetch: fakeFetch })
    expect(seen.map((s) => new URL(s.url).host)).toEqual(['api.tavily.com', 'api.search.brave.com', 'api.exa.ai', 's.jina.ai', 'www.googleapis.com'])
    expect((seen[0]!.init!.headers as Record<string, string>)['authorization']).toBe('Bearer k-123')
    expect((seen[1]!.init!.headers as Record<string, string>)['x-subscription-token']).toBe('k-123')
  })
})

describe('read a web page', () => {
  it('turns the article into markdown without the page chrome', async () => {
    const page = await readWebPage({ url: `${origin}/article` }, { allowPrivate: true })
    expect(page.title).toBe('Otters')
    expect(page.markdown).toContain('hold hands while they sleep')
    expect(page.markdown).toContain('**stones**')
    expect(page.markdown).not.toContain('menu menu')
  })

  it('private and local addresses are refused unless allowed; file: is always refused', async () => {
    await expect(readWebPage({ url: `${origin}/article` }, { allowPrivate: false })).rejects.toMatchObject({ error: { errorType: 'PluginApiParamsError' } })
    await expect(readWebPage({ url: 'file:///etc/passwd' }, { allowPrivate: true })).rejects.toMatchObject({ error: { errorType: 'PluginApiParamsError' } })
    await expect(readWebPage({ url: `${origin}/redirect-to-file` }, { allowPrivate: true })).rejects.toMatchObject({ error: { errorType: 'PluginApiParamsError' } })
    for (const a of ['10.0.0.1', '192.168.1.1', '172.16.5.5', '169.254.169.254', '::1', 'fd00::1', '::ffff:127.0.0.1', '100.64.0.1']) expect(isPrivateAddress(a)).toBe(true)
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700::1111']) expect(isPrivateAddress(a)).toBe(false)
  })

  it('a page over the size cap ends in a clear error', async () => {
    await expect(readWebPage({ url: `${origin}/huge` }, { allowPrivate: true })).rejects.toMatchObject({ error: { errorType: 'PluginServerError', message: expect.stringMatching(/limit is 5 MB/) } })
  })
})

describe('web search in a reply', () => {
  let t: TestCore
  let fake: FakeToolProvider
  let decide: (turn: ToolTurn) => Decision = () => ({ text: '' })
  beforeAll(async () => {
    fake = await startFakeToolProvider((turn) => decide(turn))
    t = await startCore()
    ok(await t.client.call('providers.update', { providerId: 'openai', baseURL: `${fake.origin}/v1` }))
    ok(await t.client.call('providers.setKey', { providerId: 'openai', apiKey: 'sk-test-search-0123456789' }))
    ok(await t.client.call('data.agents.update', { id: t.agentId, patch: { providerId: 'openai', modelId: 'gpt-4o-mini' } }))
    ok(await t.client.call('tools.updateSettings', { search: { provider: 'searxng', url: origin } }))
    ok(await t.client.call('tools.setAgentTools', { agentId: t.agentId, servers: [], builtins: ['web_search'] }))
  })
  afterAll(async () => {
    await t.core.close()
    await fake.close()
  })

  it('SearXNG results become citations of the answer', async () => {
    decide = (turn) => (turn.results.length ? { text: 'Otters hold hands [1].' } : { calls: [{ name: 'web_search', args: { query: 'do otters hold hands' } }] })
    const run = await sendAndAnswer(t.client, { text: 'Do otters hold hands?' })
    const final = ok(run.result)
    expect(final.grounding?.citations?.map((c) => c.url)).toEqual(['https://example.org/otters', 'https://example.net/sleep'])
    const stored = ok(await t.client.call('chat.messages', { conversationId: final.conversationId }))
    expect(stored.find((m) => m.id === final.id)?.grounding?.citations).toHaveLength(2)
    expect(fake.turns[0]!.tools).toEqual(['web_search'])
    expect(fake.turns[1]!.results[0]!.content).toContain('Otter facts')
  })
})
