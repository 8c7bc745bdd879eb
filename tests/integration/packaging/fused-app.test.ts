import { spawn } from 'node:child_process'
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeTinyLlamaGguf } from '../../fixtures/gguf/tiny-llama'

// The packaged layout (resources/app beside the executable) around a stand-in for the Electron
// binary with runAsNode fused off (fused-electron/README.md): nothing may start a copy of the
// app binary as Node and expect Node. The installed CLI runs inside that executable: it must
// start the built-in engine, which must load a model and reply.
const root = resolve(import.meta.dirname, '../../..')
const standIn = join(import.meta.dirname, 'fused-electron')
let work: string
let exe: string
let model: string
let env: NodeJS.ProcessEnv

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sb-fused-app-'))
  const appDir = join(work, 'Switchboard')
  const app = join(appDir, 'resources', 'app')
  mkdirSync(app, { recursive: true })
  cpSync(join(root, 'out', 'main'), join(app, 'out', 'main'), { recursive: true })
  cpSync(join(root, 'package.json'), join(app, 'package.json'))
  symlinkSync(join(root, 'node_modules'), join(app, 'node_modules'))
  exe = join(appDir, 'switchboard')
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
  writeFileSync(exe, `#!/bin/sh\nSTAND_IN_EXE=${q(exe)} exec ${q(process.execPath)} ${q(join(standIn, 'launcher.mjs'))} "$@"\n`)
  chmodSync(exe, 0o755)
  model = join(work, 'tiny.gguf')
  writeTinyLlamaGguf(model)
  const home = join(work, 'home')
  mkdirSync(home)
  env = { PATH: process.env['PATH'], HOME: home, SWITCHBOARD_DATA_DIR: join(work, 'data'), STAND_IN_USER_DATA: join(work, 'user-data'), OPENAI_API_KEY: '' }
})
afterAll(() => rmSync(work, { recursive: true, force: true }))

function run(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(exe, args, { env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000)
    child.on('exit', (code) => {
      clearTimeout(timer)
      done({ code, stdout, stderr })
    })
  })
}

describe.runIf(process.platform === 'linux')('the packaged app under a binary that cannot run as Node', () => {
  it('the stand-in is honest: started as Node with a script, it opens the app instead', async () => {
    const script = join(work, 'hello.js')
    writeFileSync(script, "console.log('ran as node')\n")
    const result = await run([script], { ELECTRON_RUN_AS_NODE: '1' })
    expect(result.stdout).not.toContain('ran as node')
    expect(result.stderr).toContain('the app opened its window')
    expect(result.code).toBe(86)
  }, 60_000)

  it('the desktop app (its window scripted by the stand-in) loads the model and streams a reply over the bridge', async () => {
    mkdirSync(join(work, 'data', 'models'), { recursive: true })
    writeTinyLlamaGguf(join(work, 'data', 'models', 'tiny.gguf'))
    const script = join(work, 'renderer.json')
    writeFileSync(
      script,
      JSON.stringify([
        { t: 'call', id: 1, proc: 'chat.sidebar', input: {} },
        { t: 'call', id: 2, proc: 'data.agents.update', input: { id: '$1.defaultAgentId', patch: { providerId: 'builtin', modelId: 'tiny', parameters: { maxOutputTokens: 6, temperature: 0 } } } },
        { t: 'start', id: 3, proc: 'chat.send', input: { text: 'hello' } }
      ])
    )
    const result = await run([], { STAND_IN_RENDERER: script })
    expect(result.stderr).not.toMatch(/NoBinaryFoundError|opened its window|stopped unexpectedly/)
    expect(result.code, result.stderr).toBe(0)
    const end = result.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { t: string; id: number; result?: { ok: boolean; value?: { providerId?: string; status?: string; content?: Array<{ type: string; text?: string }> }; error?: unknown } })
      .find((m) => m.t === 'end' && m.id === 3)
    expect(end?.result?.ok, JSON.stringify(end?.result?.error)).toBe(true)
    expect(end?.result?.value).toMatchObject({ providerId: 'builtin', status: 'complete' })
    expect(end?.result?.value?.content?.[0]?.text?.length).toBeGreaterThan(0)
  }, 120_000)

  it('`switchboard chat builtin/…` from the installed CLI starts the engine and gets a reply', async () => {
    const result = await run(['--cli', 'chat', `builtin/${model}`, '--max-tokens', '6', '--temperature', '0', 'hello'])
    expect(result.stderr).not.toMatch(/NoBinaryFoundError|opened its window|stopped unexpectedly/)
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout.trim().length).toBeGreaterThan(0)
  }, 120_000)

  it('`switchboard api serve` (the core with its engine service, as the desktop builds it) answers a chat from the built-in engine', async () => {
    mkdirSync(join(work, 'data', 'models'), { recursive: true })
    writeTinyLlamaGguf(join(work, 'data', 'models', 'tiny.gguf'))
    const made = await run(['api', 'key-create', 'fused'])
    expect(made.code, made.stderr).toBe(0)
    const key = made.stdout.trim()
    const child = spawn(exe, ['api', 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    try {
      const url = await new Promise<string>((done, fail) => {
        let out = ''
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString()
          const m = /Local API on (\S+)\/v1 /.exec(out)
          if (m) done(m[1]!)
        })
        child.on('exit', (code) => fail(new Error(`api serve exited ${code}: ${stderr}`)))
      })
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'builtin/tiny', messages: [{ role: 'user', content: 'hello' }], max_tokens: 6, temperature: 0 })
      })
      const body = (await response.json()) as { choices?: Array<{ message: { content: string } }> }
      expect(response.status, JSON.stringify(body) + stderr).toBe(200)
      expect(body.choices?.[0]?.message.content.length).toBeGreaterThan(0)
      expect(stderr).not.toMatch(/NoBinaryFoundError|opened its window/)
    } finally {
      child.kill('SIGINT')
      await new Promise((done) => (child.exitCode !== null ? done(null) : child.once('exit', done)))
    }
  }, 120_000)

  it('`switchboard builtin load` reports the model loaded in the command’s own engine', async () => {
    const result = await run(['builtin', 'load', model])
    expect(result.stderr).not.toMatch(/NoBinaryFoundError|opened its window|stopped unexpectedly/)
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/Loaded .*context/)
  }, 120_000)
})
