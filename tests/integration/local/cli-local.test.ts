import { PassThrough } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../../src/cli/main'
import type { CliIO } from '../../../src/cli/command'
import type { PullSnapshot } from '../../../src/shared/local/pull-progress'
import { closedPortUrl, startFakeOllama, type FakeOllama } from '../../fixtures/fake-ollama'

let fake: FakeOllama
beforeAll(async () => {
  fake = await startFakeOllama({ pacing: { linesPerLayer: 20, totalMs: 400 } })
})
afterAll(() => fake.close())

function io(tty = false) {
  let out = ''
  let err = ''
  const stdout = Object.assign(new PassThrough(), { isTTY: tty, columns: 120 })
  const stderr = Object.assign(new PassThrough(), { isTTY: tty })
  stdout.on('data', (d: Buffer) => (out += d.toString()))
  stderr.on('data', (d: Buffer) => (err += d.toString()))
  const value: CliIO = { stdout, stderr, stdin: new PassThrough(), env: {} }
  return { io: value, out: () => out, err: () => err }
}

describe('switchboard pull / ps / rm', () => {
  it('pull --json prints one JSON event per line, ending with the exact byte count', async () => {
    const t = io()
    expect(await main(['pull', 'smollm2:135m', '--base-url', fake.url, '--json'], t.io)).toBe(0)
    const events = t.out().trim().split('\n').map((line) => JSON.parse(line) as PullSnapshot)
    expect(events.length).toBeGreaterThan(2)
    const last = events.at(-1)!
    expect(last.phase).toBe('success')
    expect(last.completedBytes).toBe(fake.registry['smollm2:135m']!.layers.reduce((s, l) => s + l.size, 0))
  })

  it('pull on a terminal redraws one progress bar line', async () => {
    const t = io(true)
    expect(await main(['pull', 'tinyllama', '--base-url', fake.url, '--insecure'], t.io)).toBe(0)
    expect(t.out()).toContain('\r\x1b[2K')
    expect(t.out()).toMatch(/100\.0%/)
    expect(t.out()).toMatch(/Pulled tinyllama: 637\.7 MB/)
    expect(fake.requests.filter((r) => r.path === '/api/pull').at(-1)?.body).toMatchObject({ insecure: true })
  })

  it('pull of an unknown model fails with exit 1 and says the library has no such name; server down says so', async () => {
    const t = io()
    expect(await main(['pull', 'nope', '--base-url', fake.url], t.io)).toBe(1)
    expect(t.err()).toContain('"nope" was not found in the Ollama library — check the name.')
    const d = io()
    expect(await main(['pull', 'nope', '--base-url', await closedPortUrl()], d.io)).toBe(1)
    expect(d.err()).toContain('please check whether your ollama service is available')
  })

  it('ps lists loaded models; rm deletes and reports a missing one', async () => {
    const p = io()
    expect(await main(['ps', '--base-url', fake.url], p.io)).toBe(0)
    expect(p.out()).toMatch(/^NAME\s+SIZE\s+PROCESSOR/)
    expect(p.out()).toContain('llama3.2:latest')
    const r = io()
    expect(await main(['rm', 'qwen3:0.6b', 'nope:1b', '--base-url', fake.url], r.io)).toBe(1)
    expect(r.out()).toContain("deleted 'qwen3:0.6b'")
    expect(r.err()).toContain("model 'nope:1b' not found")
    expect(fake.installed.has('qwen3:0.6b')).toBe(false)
  })

  it('reads OLLAMA_HOST when no --base-url is given', async () => {
    const t = io()
    t.io.env = { OLLAMA_HOST: fake.url }
    expect(await main(['ps', '--json'], t.io)).toBe(0)
    expect(JSON.parse(t.out())).toHaveLength(1)
  })
})
