import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { messageText } from '../../../src/shared/data/message'
import { startFakeToolProvider, type Decision, type FakeToolProvider, type ToolTurn } from '../../fixtures/fake-tool-provider'
import { ok, sendAndAnswer, startCore, type TestCore } from './helpers'

// The chat's search toggle (issue 21) on a model without search of its own: the core offers the
// app's web_search through the tool loop, runs it against a SearXNG-format server without an
// approval card (the toggle is the consent), and the answer cites what it found.
let web: Server
let origin: string
const searches: string[] = []
let t: TestCore
let fake: FakeToolProvider
let decide: (turn: ToolTurn) => Decision = () => ({ text: '' })

beforeAll(async () => {
  web = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    searches.push(url.searchParams.get('q') ?? '')
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ query: url.searchParams.get('q'), results: [{ url: 'https://example.org/tides', title: 'Tide tables', content: 'High tide at 06:12.' }] }))
  })
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r))
  origin = `http://127.0.0.1:${(web.address() as AddressInfo).port}`
  fake = await startFakeToolProvider((turn) => decide(turn))
  t = await startCore()
  ok(await t.client.call('providers.update', { providerId: 'openai', baseURL: `${fake.origin}/v1` }))
  ok(await t.client.call('providers.setKey', { providerId: 'openai', apiKey: 'sk-test-toggle-0123456789' }))
  // gpt-4.1-nano has no search of its own (no search ability; OpenAI is not a searching provider).
  ok(await t.client.call('data.agents.update', { id: t.agentId, patch: { providerId: 'openai', modelId: 'gpt-4.1-nano', parameters: { search: 'on' } } }))
}, 60_000)

afterAll(async () => {
  await t.core.close()
  await fake.close()
  await new Promise<void>((r) => web.close(() => r()))
})

const searchThenAnswer = (turn: ToolTurn): Decision =>
  turn.results.length ? { text: `High tide is at 06:12 [1]. (${turn.results[0]!.content.split('\n')[0]})` } : turn.tools.includes('web_search') ? { calls: [{ name: 'web_search', args: { query: 'high tide today' } }] } : { text: 'no search offered' }

describe('search toggle → the app’s web search', () => {
  it('without a search provider set up, nothing is offered and the model answers alone', async () => {
    decide = searchThenAnswer
    const before = fake.turns.length
    const run = await sendAndAnswer(t.client, { text: 'When is high tide?' })
    expect(messageText(ok(run.result).content)).toBe('no search offered')
    expect(fake.turns.slice(before).every((x) => x.tools.length === 0)).toBe(true)
  })

  it('with SearXNG set up: web_search is offered, runs without a card, and its results become citations', async () => {
    ok(await t.client.call('tools.updateSettings', { search: { provider: 'searxng', url: origin } }))
    decide = searchThenAnswer
    const before = fake.turns.length
    const run = await sendAndAnswer(t.client, { text: 'When is high tide?' }, () => 'wait')
    const final = ok(run.result)
    const turns = fake.turns.slice(before)
    expect(turns[0]!.tools).toEqual(['web_search'])
    // The provider was not asked to search itself (no native search parameter on the wire).
    expect(JSON.stringify(turns[0]!.body)).not.toMatch(/web_search_options|enable_search/)
    expect(searches.at(-1)).toBe('high tide today')
    expect(turns[1]!.results[0]!.content).toContain('Tide tables')
    expect(run.events.some((e) => e.type === 'tool_approval')).toBe(false)
    expect(messageText(final.content)).toContain('06:12')
    expect(final.grounding?.citations?.map((c) => c.url)).toEqual(['https://example.org/tides'])
    expect(final.meta?.options).toMatchObject({ search: true, searchRoute: 'app-tool' })
  })

  it('a model with its own search uses it, unless the agent chose the app’s search (searchImpl internal)', async () => {
    decide = searchThenAnswer
    ok(await t.client.call('data.agents.update', { id: t.agentId, patch: { modelId: 'gpt-4o-mini' } }))
    let before = fake.turns.length
    let final = ok((await sendAndAnswer(t.client, { text: 'When is high tide?' })).result)
    expect(fake.turns.slice(before)[0]!.tools).toEqual([])
    expect(final.meta?.options).toMatchObject({ search: true, searchRoute: 'provider' })
    ok(await t.client.call('data.agents.update', { id: t.agentId, patch: { parameters: { search: 'on', extra: { searchImpl: 'internal' } } } }))
    before = fake.turns.length
    final = ok((await sendAndAnswer(t.client, { text: 'When is high tide?' })).result)
    expect(fake.turns.slice(before)[0]!.tools).toEqual(['web_search'])
    expect(final.meta?.options).toMatchObject({ search: true, searchRoute: 'app-tool' })
    ok(await t.client.call('data.agents.update', { id: t.agentId, patch: { modelId: 'gpt-4.1-nano', parameters: { search: 'on' } } }))
  })

  it('search off: the tool is not offered', async () => {
    ok(await t.client.call('data.agents.update', { id: t.agentId, patch: { parameters: { search: 'off' } } }))
    decide = searchThenAnswer
    const before = fake.turns.length
    const run = await sendAndAnswer(t.client, { text: 'When is high tide?' })
    expect(messageText(ok(run.result).content)).toBe('no search offered')
    expect(fake.turns.slice(before)[0]!.tools).toEqual([])
  })

  it('web_search set to "never": the toggle does not bring it back', async () => {
    ok(await t.client.call('data.agents.update', { id: t.agentId, patch: { parameters: { search: 'on' } } }))
    ok(await t.client.call('tools.setApproval', { serverId: 'builtin', tool: 'web_search', mode: 'never' }))
    decide = searchThenAnswer
    const run = await sendAndAnswer(t.client, { text: 'When is high tide?' })
    expect(messageText(ok(run.result).content)).toBe('no search offered')
    ok(await t.client.call('tools.setApproval', { serverId: 'builtin', tool: 'web_search', mode: 'ask' }))
  })
})
