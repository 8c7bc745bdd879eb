import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { ChatStreamEvent } from '../../../src/shared/bridge/procedures/chat'
import { startFakeToolProvider, type Decision, type FakeToolProvider, type ToolTurn } from '../../fixtures/fake-tool-provider'
import { EVERYTHING, ok, startCore, type Run, type TestCore } from './helpers'

// What an MCP server may ask of the client, against the real reference server over stdio:
// sampling (the model through the app, approved by the user), elicitation (a form), roots
// (the folders allowed for the server), and tool result images sent to a model with vision.
// The model is a fake provider in the real wire formats (OpenAI, Anthropic), so the real SDKs run.
let t: TestCore
let fake: FakeToolProvider
let serverId: string
let decide: (turn: ToolTurn) => Decision = () => ({ text: 'unset' })

const SAMPLED = 'SAMPLED-ANSWER-4711'
const models = {
  openai: { providerId: 'openai', modelId: 'gpt-4o-mini' },
  anthropic: { providerId: 'anthropic', modelId: 'claude-sonnet-4-5-20250929' },
  /** No vision in the catalogue. */
  blind: { providerId: 'openai', modelId: 'gpt-3.5-turbo' }
}

beforeAll(async () => {
  fake = await startFakeToolProvider((turn) => decide(turn))
  t = await startCore()
  serverId = ok(await t.client.call('tools.addServer', { name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] })).id
  ok(await t.client.call('tools.setAgentTools', { agentId: t.agentId, servers: [serverId], builtins: [] }))
  ok(await t.client.call('providers.update', { providerId: 'openai', baseURL: `${fake.origin}/v1` }))
  ok(await t.client.call('providers.setKey', { providerId: 'openai', apiKey: 'sk-test-tools-0123456789' }))
  ok(await t.client.call('providers.update', { providerId: 'anthropic', baseURL: fake.origin }))
  ok(await t.client.call('providers.setKey', { providerId: 'anthropic', apiKey: 'sk-ant-test-tools-0123456789' }))
  ok(await t.client.call('data.agents.update', { id: t.agentId, patch: models.openai }))
}, 60_000)

afterAll(async () => {
  await t?.core.close()
  await fake?.close()
})

/** Whether this request already carries a tool's result (then the model answers). */
const hasResult = (turn: ToolTurn) => /"tool_call_id"|"tool_result"/.test(JSON.stringify(turn.body))
const lastResultText = (turn: ToolTurn) => turn.results.map((r) => r.content).join(' | ')

/** Calls `tool` once, then answers with what came back; a sampling request (no tools offered) gets SAMPLED. */
const callThenAnswer =
  (tool: string, args: Record<string, unknown> = {}) =>
  (turn: ToolTurn): Decision => {
    if (turn.tools.length === 0 && /test server|context:/.test(JSON.stringify(turn.body))) return { text: SAMPLED }
    if (!hasResult(turn)) return { calls: [{ name: `everything__${tool}`, args }] }
    return { text: `done: ${lastResultText(turn)}` }
  }

/** Sends a message; each card or question is answered by `on` (with the bridge, as the UI does). */
function send(input: Record<string, unknown>, on: (e: ChatStreamEvent) => void | Promise<void>): Promise<Run> {
  return new Promise((done) => {
    const events: ChatStreamEvent[] = []
    t.client.stream('chat.send', input as never, {
      onEvent: (e: ChatStreamEvent) => {
        events.push(e)
        void on(e)
      },
      onEnd: (result) => done({ events, result })
    })
  })
}

const allowTools = (e: ChatStreamEvent) => {
  if (e.type === 'tool_approval' && !e.data.sampling) void t.client.call('tools.answer', { messageId: e.data.messageId, callId: e.data.callId, decision: 'allow' })
}

const stepResult = async (run: Run) => {
  const final = ok(run.result)
  const stored = ok(await t.client.call('chat.messages', { conversationId: final.conversationId }))
  return stored.find((m) => m.toolResults?.length)!.toolResults![0]!
}

describe('sampling: the server asks the model through the app', () => {
  it('shows a card (server, prompt, model, max tokens); on Allow the chat model answers, logged in Usage', async () => {
    decide = callThenAnswer('trigger-sampling-request', { prompt: 'Name a colour', maxTokens: 77 })
    const before = fake.turns.length
    const run = await send({ text: 'sample please' }, (e) => {
      allowTools(e)
      if (e.type === 'tool_approval' && e.data.sampling) void t.client.call('tools.answer', { messageId: e.data.messageId, callId: e.data.callId, decision: 'allow' })
    })
    const card = run.events.find((e) => e.type === 'tool_approval' && e.data.sampling)
    expect(card?.type === 'tool_approval' && card.data).toMatchObject({
      serverName: 'everything',
      tool: 'sampling/createMessage',
      sampling: { model: models.openai, maxTokens: 77, systemPrompt: 'You are a helpful test server.' }
    })
    if (card?.type === 'tool_approval') expect(card.data.sampling?.prompt).toContain('Name a colour')
    // The sampling call went to the chat's model with the server's limit, in the provider's format.
    const sampling = fake.turns.slice(before).find((x) => JSON.stringify(x.body).includes('Name a colour') && x.tools.length === 0)
    expect(sampling?.body['max_tokens']).toBe(77)
    const result = await stepResult(run)
    expect(result.outcome).toBe('ok')
    expect(result.content).toContain(SAMPLED)
    // Logged like any model call: one more line for the conversation than the reply's own calls.
    const final = ok(run.result)
    const usage = ok(await t.client.call('data.usage.list', { conversationId: final.conversationId }))
    expect(usage.length).toBe(3)
  }, 60_000)

  it('on Deny the server gets an MCP error (the tool fails, the model reads why); "never" is remembered per server', async () => {
    decide = callThenAnswer('trigger-sampling-request', { prompt: 'Name a fruit' })
    const before = fake.turns.length
    const run = await send({ text: 'sample again' }, (e) => {
      allowTools(e)
      if (e.type === 'tool_approval' && e.data.sampling) void t.client.call('tools.answer', { messageId: e.data.messageId, callId: e.data.callId, decision: 'never' })
    })
    const result = await stepResult(run)
    expect(result.isError).toBe(true)
    expect(result.content).toMatch(/rejected sampling/i)
    expect(fake.turns.slice(before).some((x) => JSON.stringify(x.body).includes('Name a fruit') && x.tools.length === 0)).toBe(false)
    // Next time: refused without a card.
    const again = await send({ text: 'sample once more' }, allowTools)
    expect(again.events.some((e) => e.type === 'tool_approval' && e.data.sampling)).toBe(false)
    expect((await stepResult(again)).content).toMatch(/does not allow everything/)
    ok(await t.client.call('tools.setApproval', { serverId, tool: 'sampling/createMessage', mode: 'ask' }))
  }, 60_000)
})

describe('elicitation: the server asks the user', () => {
  it('a form answer is checked against the schema, then returned (accept)', async () => {
    decide = callThenAnswer('trigger-elicitation-request')
    let refused = ''
    const run = await send({ text: 'ask me' }, async (e) => {
      allowTools(e)
      if (e.type !== 'tool_elicitation') return
      const { messageId, callId, requestedSchema, serverName } = e.data
      expect(serverName).toBe('everything')
      expect(requestedSchema.required).toContain('name')
      expect(requestedSchema.properties['integer']).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 })
      // Missing the required name, an integer out of range: refused, the question stays open.
      const bad = await t.client.call('tools.answerElicitation', { messageId, callId, action: 'accept', content: { integer: 500 } })
      refused = bad.ok ? '' : bad.error.message
      ok(await t.client.call('tools.answerElicitation', { messageId, callId, action: 'accept', content: { name: 'Ada Lovelace', check: true, integer: 42 } }))
    })
    expect(refused).toMatch(/String is required/)
    expect(refused).toMatch(/at most 100/)
    const result = await stepResult(run)
    expect(result.content).toContain('Name: Ada Lovelace')
    expect(result.content).toContain('Favorite Integer: 42')
  }, 60_000)

  it('decline reaches the server as decline', async () => {
    decide = callThenAnswer('trigger-elicitation-request')
    const run = await send({ text: 'ask me again' }, (e) => {
      allowTools(e)
      if (e.type === 'tool_elicitation') void t.client.call('tools.answerElicitation', { messageId: e.data.messageId, callId: e.data.callId, action: 'decline' })
    })
    expect((await stepResult(run)).content).toMatch(/declined/)
  }, 60_000)
})

describe('roots: the folders allowed for the server', () => {
  it('none by default; the list set in Settings is returned, and a change is announced (the server asks again)', async () => {
    decide = callThenAnswer('get-roots-list')
    const first = await send({ text: 'roots?' }, allowTools)
    expect((await stepResult(first)).content).toMatch(/no roots are currently configured|0 total/)
    const a = realpathSync(mkdtempSync(join(tmpdir(), 'sb-root-a-')))
    const b = realpathSync(mkdtempSync(join(tmpdir(), 'sb-root-b-')))
    const status = ok(await t.client.call('tools.setRoots', { id: serverId, roots: [a, b] }))
    expect(status.config.roots).toEqual([a, b])
    // The server re-reads the list on the notification; it answers from what it read.
    let content = ''
    for (let i = 0; i < 20 && !content.includes(pathToFileURL(b).href); i++) {
      await new Promise((r) => setTimeout(r, 250))
      content = (await stepResult(await send({ text: `roots now? ${i}` }, allowTools))).content
    }
    expect(content).toContain(pathToFileURL(a).href)
    expect(content).toContain(pathToFileURL(b).href)
  }, 90_000)
})

describe('tool result images reach a model with vision', () => {
  const imageTurn = (before: number) => fake.turns.slice(before).find((x) => hasResult(x))!
  it('OpenAI-compatible: the image follows the tool messages as an image_url part', async () => {
    decide = callThenAnswer('get-tiny-image')
    ok(await t.client.call('data.agents.update', { id: t.agentId, patch: models.openai }))
    const before = fake.turns.length
    ok((await send({ text: 'show me' }, allowTools)).result)
    const messages = imageTurn(before).body['messages'] as { role: string; content: unknown }[]
    const toolAt = messages.findIndex((m) => m.role === 'tool')
    expect(typeof messages[toolAt]!.content).toBe('string')
    const next = messages[toolAt + 1]!
    expect(next.role).toBe('user')
    expect(JSON.stringify(next.content)).toMatch(/"image_url":\{"url":"data:image\/png;base64,iVBOR/)
  }, 60_000)

  it('Anthropic: the image is inside the tool_result block', async () => {
    decide = callThenAnswer('get-tiny-image')
    ok(await t.client.call('data.agents.update', { id: t.agentId, patch: models.anthropic }))
    const before = fake.turns.length
    ok((await send({ text: 'show me' }, allowTools)).result)
    const messages = imageTurn(before).body['messages'] as { role: string; content: Record<string, unknown>[] }[]
    const block = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((b) => b['type'] === 'tool_result')!
    expect(block['content']).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'image', source: expect.objectContaining({ type: 'base64', media_type: 'image/png' }) })]))
  }, 60_000)

  it('a model without vision gets the placeholder text, no image', async () => {
    decide = callThenAnswer('get-tiny-image')
    ok(await t.client.call('data.agents.update', { id: t.agentId, patch: models.blind }))
    const before = fake.turns.length
    ok((await send({ text: 'show me' }, allowTools)).result)
    const body = JSON.stringify(imageTurn(before).body)
    expect(body).toMatch(/\[image image\/png, \d+ KB\]/)
    expect(body).not.toContain('data:image/png')
    ok(await t.client.call('data.agents.update', { id: t.agentId, patch: models.openai }))
  }, 60_000)
})

describe('tools per message (the composer toggle)', () => {
  it('off: no tools offered for this message; the agent keeps its servers', async () => {
    decide = (turn) => ({ text: `tools: ${turn.tools.length}` })
    const before = fake.turns.length
    ok((await send({ text: 'no tools now', tools: { off: true } }, allowTools)).result)
    expect(fake.turns.slice(before)[0]!.tools).toEqual([])
    expect(ok(await t.client.call('tools.settings', {})).agents[t.agentId]?.servers).toEqual([serverId])
    const after = fake.turns.length
    ok((await send({ text: 'tools again' }, allowTools)).result)
    expect(fake.turns.slice(after)[0]!.tools).toContain('everything__echo')
  }, 60_000)

  it('a server skipped for this message is left out', async () => {
    decide = (turn) => ({ text: `tools: ${turn.tools.length}` })
    const before = fake.turns.length
    ok((await send({ text: 'not that server', tools: { skipServers: [serverId] } }, allowTools)).result)
    expect(fake.turns.slice(before)[0]!.tools.some((n) => n.startsWith('everything__'))).toBe(false)
  }, 60_000)
})
