import { execFile } from 'node:child_process'
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeToolProvider, type Decision, type FakeToolProvider, type ToolTurn } from '../../fixtures/fake-tool-provider'
import { EVERYTHING, FILESYSTEM } from './helpers'
import { startEverythingHttp } from './spawn-http-server'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')
const bin = resolve(root, 'bin/switchboard.mjs')
let fake: FakeToolProvider
let folder: string
let decide: (turn: ToolTurn) => Decision = () => ({ text: 'unset' })

beforeAll(async () => {
  folder = realpathSync(mkdtempSync(join(tmpdir(), 'sb-cli-fs-')))
  writeFileSync(join(folder, 'todo.txt'), 'buy milk')
  fake = await startFakeToolProvider((turn) => decide(turn))
})
afterAll(() => fake.close())

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [bin, ...args], { cwd: root, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', OPENAI_API_KEY: 'sk-cli-tools' }, timeout: 60_000 }, (error, stdout, stderr) => {
      done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

const readTodo = (turn: ToolTurn): Decision => {
  const read = turn.tools.find((n) => n.endsWith('__read_text_file') || n.endsWith('__echo'))
  if (!turn.results.length && read) return { calls: [{ name: read, args: read.endsWith('echo') ? { message: 'pong' } : { path: join(folder, 'todo.txt') } }] }
  return { text: `Result: ${turn.results.map((r) => r.content).join(' ')}` }
}

describe('switchboard chat --tool-server', { timeout: 60_000 }, () => {
  it('a stdio server with --yes: the loop runs headless and the answer reads the file', async () => {
    decide = readTodo
    const r = await cli(['chat', 'openai/gpt-4o-mini', '--base-url', `${fake.origin}/v1`, '--tool-server', `${process.execPath} ${FILESYSTEM} ${folder}`, '--yes', 'What is on my todo list?'])
    expect(r.stderr).toContain('ready with')
    expect(r.stdout).toContain('Result: buy milk')
    expect(r.code).toBe(0)
  })

  it('without --yes and no terminal, the call is denied and the model told so', async () => {
    decide = readTodo
    const r = await cli(['chat', 'openai/gpt-4o-mini', '--base-url', `${fake.origin}/v1`, '--tool-server', `${process.execPath} ${FILESYSTEM} ${folder}`, 'What is on my todo list?'])
    expect(r.stderr).toContain('pass --yes')
    expect(r.stdout).toContain('declined')
    expect(r.stdout).not.toContain('buy milk')
  })

  it("a server's sampling request runs only when approved: with --yes the chat's model answers it", async () => {
    const sampling = (turn: ToolTurn): Decision => {
      if (turn.tools.length === 0) return { text: 'SAMPLED-BY-CLI' }
      if (!turn.results.length) return { calls: [{ name: 'node__trigger-sampling-request', args: { prompt: 'hello' } }] }
      return { text: `Result: ${turn.results.map((r) => r.content).join(' ')}` }
    }
    decide = sampling
    const server = `${process.execPath} ${EVERYTHING} stdio`
    const denied = await cli(['chat', 'openai/gpt-4o-mini', '--base-url', `${fake.origin}/v1`, '--tool-server', server, 'sample'])
    // The tool call itself is denied first (no terminal); with --yes both the call and the sampling run.
    expect(denied.stdout).not.toContain('SAMPLED-BY-CLI')
    const allowed = await cli(['chat', 'openai/gpt-4o-mini', '--base-url', `${fake.origin}/v1`, '--tool-server', server, '--yes', 'sample'])
    expect(allowed.stdout).toContain('SAMPLED-BY-CLI')
    expect(allowed.code).toBe(0)
  })

  it("a server's question without a terminal is declined with a note on stderr", async () => {
    decide = (turn) => (!turn.results.length && turn.tools.length ? { calls: [{ name: 'node__trigger-elicitation-request', args: {} }] } : { text: `Result: ${turn.results.map((r) => r.content).join(' ')}` })
    const r = await cli(['chat', 'openai/gpt-4o-mini', '--base-url', `${fake.origin}/v1`, '--tool-server', `${process.execPath} ${EVERYTHING} stdio`, '--yes', 'ask me'])
    expect(r.stderr).toMatch(/node asked: .*declined, no terminal/)
    expect(r.stdout).toContain('declined to provide')
    expect(r.code).toBe(0)
  })

  it('a Streamable HTTP server given by URL', async () => {
    const http = await startEverythingHttp(EVERYTHING, 'streamableHttp')
    try {
      decide = readTodo
      const r = await cli(['chat', 'openai/gpt-4o-mini', '--base-url', `${fake.origin}/v1`, '--tool-server', http.url, '--yes', 'ping'])
      expect(r.stdout).toContain('Echo: pong')
      expect(r.code).toBe(0)
    } finally {
      await http.stop()
    }
  })

  it('a server that cannot start stops the chat with an error naming it (a missing command, one that exits, an address nothing answers)', async () => {
    decide = (turn) => ({ text: `tools offered: ${turn.tools.length}` })
    const before = fake.turns.length
    for (const spec of ['/nonexistent/server-bin', 'false', 'http://127.0.0.1:9/']) {
      const r = await cli(['chat', 'openai/gpt-4o-mini', '--base-url', `${fake.origin}/v1`, '--tool-server', spec, '--yes', 'hi'])
      expect(r.code, spec).toBe(1)
      expect(r.stderr).toMatch(/^error: the tool server .+ could not start: /m)
      expect(r.stderr).toContain(spec === 'http://127.0.0.1:9/' ? '127.0.0.1:9' : spec)
      expect(r.stderr).toContain('--tools-optional')
      expect(r.stdout).toBe('')
    }
    // The model was never asked.
    expect(fake.turns.length).toBe(before)
  })

  it('with --tools-optional it says so on stderr and the model answers without that server', async () => {
    decide = (turn) => ({ text: `tools offered: ${turn.tools.length}` })
    const r = await cli(['chat', 'openai/gpt-4o-mini', '--base-url', `${fake.origin}/v1`, '--tool-server', 'false', '--tools-optional', '--yes', 'hi'])
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/\[tools: false unavailable: .*continuing without its tools \(--tools-optional\)\]/s)
    expect(r.stdout).toContain('tools offered: 0')
  })

  it('--json prints events in the order they happened, with one assembled tool_calls event per step', async () => {
    decide = readTodo
    const r = await cli(['chat', 'openai/gpt-4o-mini', '--base-url', `${fake.origin}/v1`, '--tool-server', `${process.execPath} ${FILESYSTEM} ${folder}`, '--yes', '--json', 'What is on my todo list?'])
    expect(r.code).toBe(0)
    const events = r.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; data: unknown })
    const types = events.map((e) => e.type)
    const calls = events.filter((e) => e.type === 'tool_calls')
    expect(calls).toHaveLength(1)
    const [call] = calls[0]!.data as { id: string; function: { name: string; arguments: string } }[]
    expect(call!.function.name).toMatch(/__read_text_file$/)
    expect(JSON.parse(call!.function.arguments)).toEqual({ path: join(folder, 'todo.txt') })
    // The step that made the call ends (tool_calls, then its stop) before the tool runs.
    const firstStop = types.indexOf('stop')
    expect(types.indexOf('tool_calls')).toBeLessThan(firstStop)
    expect(firstStop).toBeLessThan(types.indexOf('tool_running'))
    expect(types.indexOf('tool_running')).toBeLessThan(types.indexOf('tool_result'))
    expect(types.lastIndexOf('text')).toBeGreaterThan(types.indexOf('tool_result'))
    expect(types.lastIndexOf('stop'), types.join(' ')).toBeGreaterThan(types.indexOf('tool_result'))
  })
})
