import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { messageText } from '../../../src/shared/data/message'
import { startFakeToolProvider, type Decision, type FakeToolProvider, type ToolTurn, type WireFormat } from '../../fixtures/fake-tool-provider'
import { EVERYTHING, FILESYSTEM, ok, sendAndAnswer, startCore, type TestCore } from './helpers'

// The tool loop end to end: the real filesystem MCP server over stdio on a temporary folder,
// a fake model that calls it in each provider's wire format, the real SDKs, SQLite, the bridge.
let t: TestCore
let fake: FakeToolProvider
let folder: string
let serverId: string
let decide: (turn: ToolTurn) => Decision = () => ({ text: 'unset' })

const SECRET = 'The launch code is 7-4-1-9.'

beforeAll(async () => {
  folder = realpathSync(mkdtempSync(join(tmpdir(), 'sb-fs-')))
  writeFileSync(join(folder, 'notes.txt'), SECRET)
  fake = await startFakeToolProvider((turn) => decide(turn))
  t = await startCore()
  const server = ok(await t.client.call('tools.addServer', { name: 'files', transport: 'stdio', command: process.execPath, args: [FILESYSTEM, folder] }))
  serverId = server.id
  ok(await t.client.call('tools.setAgentTools', { agentId: t.agentId, servers: [serverId], builtins: [] }))
  ok(await t.client.call('providers.update', { providerId: 'openai', baseURL: `${fake.origin}/v1` }))
  ok(await t.client.call('providers.setKey', { providerId: 'openai', apiKey: 'sk-test-tools-0123456789' }))
  ok(await t.client.call('providers.update', { providerId: 'anthropic', baseURL: fake.origin }))
  ok(await t.client.call('providers.setKey', { providerId: 'anthropic', apiKey: 'sk-ant-test-tools-0123456789' }))
  ok(await t.client.call('providers.update', { providerId: 'google', baseURL: fake.origin }))
  ok(await t.client.call('providers.setKey', { providerId: 'google', apiKey: 'AIza-test-tools-0123456789' }))
  ok(await t.client.call('providers.update', { providerId: 'ollama', baseURL: fake.origin }))
}, 60_000)

afterAll(async () => {
  await t.core.close()
  await fake.close()
})

/** Reads notes.txt with the filesystem server, then answers with what the tool returned. */
const readThenAnswer = (turn: ToolTurn): Decision => {
  const readTool = turn.tools.find((n) => n.endsWith('__read_text_file'))
  if (turn.results.length === 0 && readTool) return { calls: [{ name: readTool, args: { path: join(folder, 'notes.txt') } }] }
  return { text: `The file says: ${turn.results.map((r) => r.content).join(' | ')}` }
}

const models: Record<WireFormat, { providerId: string; modelId: string }> = {
  openai: { providerId: 'openai', modelId: 'gpt-4o-mini' },
  anthropic: { providerId: 'anthropic', modelId: 'claude-sonnet-4-5' },
  google: { providerId: 'google', modelId: 'gemini-2.5-flash' },
  ollama: { providerId: 'ollama', modelId: 'llama3.1' }
}

describe('tool loop with the filesystem MCP server', () => {
  for (const format of ['openai', 'anthropic', 'google', 'ollama'] as const) {
    it(`${format}: offers the tools in its format, runs the approved call, sends the result back and answers`, async () => {
      decide = readThenAnswer
      const before = fake.turns.length
      ok(await t.client.call('data.agents.update', { id: t.agentId, patch: models[format] }))
      const run = await sendAndAnswer(t.client, { text: 'What does notes.txt say?' })
      const final = ok(run.result)
      const turns = fake.turns.slice(before).filter((x) => x.format === format)
      // Two model calls: the one that asked for the tool, and the one that read its result.
      expect(turns.length).toBeGreaterThanOrEqual(2)
      expect(turns[0]!.tools).toContain('files__read_text_file')
      expect(turns[1]!.results[0]?.content).toContain(SECRET)
      expect(messageText(final.content)).toContain(SECRET)
      // The approval card named the server, the tool and the pretty-printed arguments.
      const card = run.events.find((e) => e.type === 'tool_approval')
      expect(card?.type === 'tool_approval' && card.data).toMatchObject({ serverName: 'files', tool: 'read_text_file' })
      if (card?.type === 'tool_approval') expect(card.data.arguments).toContain('\n  "path"')
      // Stored as a chain in the tree: the call step (with its result) is the answer's parent.
      const stored = ok(await t.client.call('chat.messages', { conversationId: final.conversationId }))
      const step = stored.find((m) => m.id === final.parentId)!
      expect(step.role).toBe('assistant')
      expect(step.toolCalls?.[0]?.function.name).toBe('files__read_text_file')
      expect(step.toolResults?.[0]).toMatchObject({ outcome: 'ok', serverId, tool: 'read_text_file' })
      expect(step.toolResults?.[0]?.content).toContain(SECRET)
      // The usage log records the mode of each model call of the loop.
      const usage = ok(await t.client.call('data.usage.list', {}))
      expect(usage.filter((u) => u.conversationId === final.conversationId).map((u) => u.mode)).toContain('Tool Calling')
    })
  }

  it('a denial goes back to the model as a result, and the tool does not run', async () => {
    ok(await t.client.call('data.agents.update', { id: t.agentId, patch: models.openai }))
    decide = readThenAnswer
    const run = await sendAndAnswer(t.client, { text: 'Read notes.txt' }, () => 'deny')
    const final = ok(run.result)
    expect(messageText(final.content)).toContain('declined')
    expect(messageText(final.content)).not.toContain(SECRET)
    const stored = ok(await t.client.call('chat.messages', { conversationId: final.conversationId }))
    expect(stored.find((m) => m.id === final.parentId)?.toolResults?.[0]?.outcome).toBe('denied')
  })

  it('"always allow" is remembered: the next call runs without a card', async () => {
    decide = readThenAnswer
    const first = await sendAndAnswer(t.client, { text: 'Read it' }, () => 'always')
    ok(first.result)
    const second = await sendAndAnswer(t.client, { text: 'Read it again' }, () => {
      throw new Error('no card expected')
    })
    expect(second.events.some((e) => e.type === 'tool_approval')).toBe(false)
    expect(messageText(ok(second.result).content)).toContain(SECRET)
    ok(await t.client.call('tools.setApproval', { serverId, tool: 'read_text_file', mode: 'ask' }))
  })

  it('parallel calls run concurrently and each gets its result; the mode is Tools Calling', async () => {
    writeFileSync(join(folder, 'a.txt'), 'alpha')
    writeFileSync(join(folder, 'b.txt'), 'beta')
    decide = (turn) =>
      turn.results.length === 0
        ? { calls: ['a.txt', 'b.txt'].map((f) => ({ name: 'files__read_text_file', args: { path: join(folder, f) } })) }
        : { text: turn.results.map((r) => r.content).join('+') }
    const run = await sendAndAnswer(t.client, { text: 'Read both' })
    const final = ok(run.result)
    expect(messageText(final.content)).toBe('alpha+beta')
    expect(run.events.filter((e) => e.type === 'tool_approval')).toHaveLength(2)
    const usage = ok(await t.client.call('data.usage.list', {})).filter((u) => u.conversationId === final.conversationId)
    expect(usage.map((u) => u.mode)).toContain('Tools Calling')
  })

  it('bad arguments and unknown tools become plugin errors the model reads, and the loop goes on', async () => {
    decide = (turn) =>
      turn.results.length === 0
        ? { calls: [{ name: 'files__read_text_file', args: { nope: 1 } }, { name: 'files__no_such_tool', args: {} }] }
        : { text: turn.results.map((r) => r.content).join('\n') }
    const run = await sendAndAnswer(t.client, { text: 'Break it' })
    const text = messageText(ok(run.result).content)
    expect(text).toMatch(/PluginServerError|PluginApiParamsError/)
    expect(text).toContain('PluginApiNotFound')
  })

  it('stops at the step limit: the last model call goes without tools', async () => {
    ok(await t.client.call('tools.updateSettings', { stepLimit: 3 }))
    ok(await t.client.call('tools.setApproval', { serverId, tool: 'list_allowed_directories', mode: 'allow' }))
    const before = fake.turns.length
    decide = (turn) => (turn.tools.length ? { calls: [{ name: 'files__list_allowed_directories', args: {} }] } : { text: 'done' })
    const run = await sendAndAnswer(t.client, { text: 'Loop forever' })
    expect(messageText(ok(run.result).content)).toBe('done')
    // (The conversation's title is summarised by one more call, without the loop's history.)
    const turns = fake.turns.slice(before).filter((x) => x.userText === 'Loop forever')
    expect(turns).toHaveLength(3)
    expect(turns[2]!.tools).toEqual([])
    ok(await t.client.call('tools.updateSettings', { stepLimit: 10 }))
  })

  it('regenerating the answer reuses the stored tool results (no new call)', async () => {
    decide = readThenAnswer
    const run = await sendAndAnswer(t.client, { text: 'What does notes.txt say now?' })
    const final = ok(run.result)
    const before = fake.turns.length
    decide = (turn) => ({ text: `again: ${turn.results.at(-1)?.content ?? 'nothing'}` })
    const again = await new Promise<{ ok: boolean; text: string; parentId?: string }>((resolve) =>
      t.client.stream('chat.regenerate', { messageId: final.id }, { onEnd: (r) => resolve(r.ok ? { ok: true, text: messageText(r.value.content), parentId: r.value.parentId } : { ok: false, text: r.error.message }) })
    )
    expect(again.ok).toBe(true)
    expect(again.parentId).toBe(final.parentId)
    expect(again.text).toContain(SECRET)
    expect(fake.turns.length - before).toBe(1)
  })

  it('stop during a running tool cancels it and ends the loop (no further model call)', async () => {
    const everything = ok(await t.client.call('tools.addServer', { name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] }))
    ok(await t.client.call('tools.setAgentTools', { agentId: t.agentId, servers: [serverId, everything.id], builtins: [] }))
    decide = (turn) => (turn.results.length ? { text: 'should not be asked' } : { calls: [{ name: 'everything__trigger-long-running-operation', args: { duration: 30, steps: 30 } }] })
    const before = fake.turns.length
    const started = Date.now()
    const run = await sendAndAnswer(t.client, { text: 'Run the long thing' }, () => 'allow', (e) => {
      if (e.type === 'tool_progress') void t.client.call('chat.stop', { messageId: e.data.messageId })
    })
    expect(Date.now() - started).toBeLessThan(15_000)
    const final = ok(run.result)
    // Stopped by the user: shown as stopped, not as a failure.
    expect(final.toolResults?.[0]).toMatchObject({ outcome: 'stopped' })
    expect(final.toolResults?.[0]?.content).toContain('cancelled')
    expect(fake.turns.slice(before).filter((x) => x.userText === 'Run the long thing')).toHaveLength(1)
    ok(await t.client.call('tools.setAgentTools', { agentId: t.agentId, servers: [serverId], builtins: [] }))
  })

  it('a step cut off by a crash (calls stored, no result) goes back to the model with an error result, not a broken history', async () => {
    decide = () => ({ text: 'hello' })
    const first = ok((await sendAndAnswer(t.client, { text: 'Hi' })).result)
    // What a crash mid-tool leaves: the step with its calls, no results, and a later reply under it.
    const messages = t.core.services().store.messages
    const step = messages.create({ conversationId: first.conversationId, parentId: first.id, role: 'assistant', status: 'complete', content: [], toolCalls: [{ id: 'call_crash', type: 'function', function: { name: 'files__read_text_file', arguments: '{"path":"x"}' } }] })
    const after = messages.create({ conversationId: first.conversationId, parentId: step.id, role: 'assistant', status: 'interrupted', content: [{ type: 'text', text: 'partial' }] })
    decide = (turn) => ({ text: `seen: ${turn.results.map((r) => `${r.callId}=${r.content}`).join()}` })
    const again = await new Promise<string>((resolve) => t.client.stream('chat.regenerate', { messageId: after.id }, { onEnd: (r) => resolve(r.ok ? messageText(r.value.content) : r.error.message) }))
    expect(again).toContain('call_crash=Error: the app stopped before this tool finished.')
  })
})
