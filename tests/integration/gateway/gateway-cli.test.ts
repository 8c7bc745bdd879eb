import { describe, expect, it } from 'vitest'
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import OpenAI from 'openai'
import Anthropic from '@anthropic-ai/sdk'
import { MemoryBackend } from '../../../src/core/secrets'
import { startFakeHttpServer } from '../../fixtures/fake-anthropic/fake-http-server'
import { SSE_HEADERS, anthropicTextReply } from '../../fixtures/fake-anthropic/anthropic-sse'
import { startTestCore } from '../test-core'

// `switchboard api`: keys made on the command line, the API served headless over the app's data
// folder (and its lock), stopped cleanly by Ctrl-C.
const cli = resolve(import.meta.dirname, '../../../out/main/cli.js')
const env = { ...process.env }

function run(args: string[]) {
  return spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env, timeout: 30_000 })
}

describe('switchboard api', () => {
  it('creates a key, serves until SIGINT, and refuses a second server on the same data folder', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-api-cli-'))
    const created = run(['api', 'key-create', 'script', '--data-dir', dataDir, '--model', 'openai/*'])
    expect(created.status, created.stderr).toBe(0)
    const secret = created.stdout.trim()
    expect(secret).toMatch(/^sb-[A-Za-z0-9_-]{20,}$/)
    expect(created.stderr).toContain('shown only now')
    const listed = run(['api', 'keys', '--data-dir', dataDir, '--json'])
    expect(JSON.parse(listed.stdout)).toMatchObject([{ name: 'script', allowedModels: ['openai/*'] }])
    expect(listed.stdout).not.toContain(secret)

    const server = spawn(process.execPath, [cli, 'api', 'serve', '--data-dir', dataDir, '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    server.stdout.on('data', (c: Buffer) => (out += c.toString()))
    const exited = new Promise<number | null>((done) => server.on('exit', (code) => done(code)))
    try {
      await expect.poll(() => out, { timeout: 20_000 }).toContain('Local API on')
      const url = /Local API on (http:\/\/[^\s]+)\/v1/.exec(out)![1]!
      const models = await new OpenAI({ apiKey: secret, baseURL: `${url}/v1`, maxRetries: 0 }).models.list()
      expect(models.object).toBe('list')

      const second = run(['api', 'serve', '--data-dir', dataDir, '--port', '0'])
      expect(second.status).toBe(1)
      expect(second.stderr).toMatch(/in use|another/i)
    } finally {
      server.kill('SIGINT')
    }
    expect(await exited).toBe(0)
    // Five processes, one waited for: a loaded two-core machine took more than the default 20 s.
  }, 60_000)

  it('edits the allowed origins and host names, refusing malformed entries with the reason, and a served API answers an added origin', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-api-cli-lists-'))
    const bad = run(['api', 'origins', 'add', 'app.example.com/path', '--data-dir', dataDir])
    expect(bad.status).toBe(2)
    expect(bad.stderr).toMatch(/not a valid origin: an origin starts with http:\/\/ or https:\/\//)
    const withPath = run(['api', 'origins', 'add', 'https://app.example.com/chat', '--data-dir', dataDir])
    expect(withPath.status).toBe(2)
    expect(withPath.stderr).toMatch(/without a path/)
    expect(run(['api', 'origins', 'list', '--data-dir', dataDir]).stdout).toContain('No origins listed')

    const added = run(['api', 'origins', 'add', 'https://App.Example.com/', 'http://localhost:5173', '--data-dir', dataDir])
    expect(added.status, added.stderr).toBe(0)
    expect(added.stdout.trim().split('\n')).toEqual(['https://app.example.com', 'http://localhost:5173'])
    // Adding one already there changes nothing.
    expect(JSON.parse(run(['api', 'origins', 'add', 'https://app.example.com', '--data-dir', dataDir, '--json']).stdout)).toEqual(['https://app.example.com', 'http://localhost:5173'])
    const missing = run(['api', 'origins', 'remove', 'https://nope.example', '--data-dir', dataDir])
    expect(missing.status).toBe(1)
    expect(missing.stderr).toContain('Not in the list: https://nope.example')
    expect(run(['api', 'origins', 'remove', 'http://localhost:5173', '--data-dir', dataDir]).stdout.trim()).toBe('https://app.example.com')

    expect(run(['api', 'hosts', 'add', 'mybox.local:8080', '--data-dir', dataDir]).stderr).toMatch(/without a port/)
    expect(run(['api', 'hosts', 'add', '192.168.1.5', '--data-dir', dataDir]).stderr).toMatch(/always answered/)
    expect(run(['api', 'hosts', 'add', 'MyBox.local', '--data-dir', dataDir]).stdout.trim()).toBe('mybox.local')
    expect(JSON.parse(run(['api', 'hosts', 'list', '--data-dir', dataDir, '--json']).stdout)).toEqual(['mybox.local'])
    expect(run(['api', 'hosts', 'remove', 'mybox.local', '--data-dir', dataDir]).stdout).toContain('No host names listed')
    expect(run(['api', 'hosts', 'frobnicate', '--data-dir', dataDir]).status).toBe(2)

    const secret = run(['api', 'key-create', 'page', '--data-dir', dataDir]).stdout.trim()
    const server = spawn(process.execPath, [cli, 'api', 'serve', '--data-dir', dataDir, '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    server.stdout.on('data', (c: Buffer) => (out += c.toString()))
    const exited = new Promise<number | null>((done) => server.on('exit', (code) => done(code)))
    try {
      await expect.poll(() => out, { timeout: 20_000 }).toContain('Local API on')
      const url = /Local API on (http:\/\/[^\s]+)\/v1/.exec(out)![1]!
      const models = (origin: string) => fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${secret}`, origin } })
      const allowed = await models('https://app.example.com')
      expect(allowed.status).toBe(200)
      expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
      expect((await models('http://localhost:5173')).status).toBe(403)
    } finally {
      server.kill('SIGINT')
    }
    expect(await exited).toBe(0)
  }, 180_000)

  it('serves with a provider key from the environment (ANTHROPIC_API_KEY) when none is stored, as `serve` and `chat` do', async () => {
    const upstream = await startFakeHttpServer(() => ({ headers: SSE_HEADERS, chunks: anthropicTextReply(['from env']) }))
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-api-cli-env-'))
    // The upstream's address is set in the data folder; no key is stored anywhere.
    const { core: setup, client } = await startTestCore('sb-api-cli-', { dataDir, secrets: { backend: new MemoryBackend() } })
    await client.call('providers.update', { providerId: 'anthropic', baseURL: upstream.url })
    await client.call('providers.setModelEnabled', { providerId: 'anthropic', modelId: 'claude-sonnet-5', enabled: true })
    await setup.close()
    const secret = run(['api', 'key-create', 'env', '--data-dir', dataDir]).stdout.trim()
    const server = spawn(process.execPath, [cli, 'api', 'serve', '--data-dir', dataDir, '--port', '0'], { env: { ...env, ANTHROPIC_API_KEY: 'sk-ant-from-env-0123456789' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    server.stdout.on('data', (c: Buffer) => (out += c.toString()))
    const exited = new Promise<number | null>((done) => server.on('exit', (code) => done(code)))
    try {
      await expect.poll(() => out, { timeout: 20_000 }).toContain('Local API on')
      const url = /Local API on (http:\/\/[^\s]+)\/v1/.exec(out)![1]!
      const reply = await new Anthropic({ apiKey: secret, baseURL: url, maxRetries: 0 }).messages.create({ model: 'anthropic/claude-sonnet-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })
      expect(reply.content).toEqual([{ type: 'text', text: 'from env' }])
      expect(upstream.requests.at(-1)!.headers['x-api-key']).toBe('sk-ant-from-env-0123456789')
    } finally {
      server.kill('SIGINT')
      await upstream.close()
    }
    expect(await exited).toBe(0)
  }, 60_000)
})
