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

  it('a server that cannot start is reported and the model answers without it', async () => {
    decide = (turn) => ({ text: `tools offered: ${turn.tools.length}` })
    const r = await cli(['chat', 'openai/gpt-4o-mini', '--base-url', `${fake.origin}/v1`, '--tool-server', '/nonexistent/server-bin', '--yes', 'hi'])
    expect(r.stderr).toContain('unavailable')
    expect(r.stdout).toContain('tools offered: 0')
  })
})
