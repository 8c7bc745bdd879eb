import { describe, expect, it } from 'vitest'
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import OpenAI from 'openai'

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
  })
})
