import { execFile } from 'node:child_process'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeHttpServer, type FakeServer, type FakeReply, type RecordedRequest } from '../../fixtures/fake-anthropic/fake-http-server'
import { SSE_HEADERS as ANTHROPIC_SSE, anthropicTextReply } from '../../fixtures/fake-anthropic/anthropic-sse'
import { SSE_HEADERS as GEMINI_SSE, geminiTextReply } from '../../fixtures/fake-google/gemini-sse'
import { SSE_HEADERS, openAIChatReply, workersAIReply } from '../../fixtures/fake-cloudflare/sse'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')
const bin = resolve(root, 'bin/switchboard.mjs')
let server: FakeServer

beforeAll(async () => {
  server = await startFakeHttpServer()
})
afterAll(() => server.close())

/** Runs the real CLI in a child process (async: the fake server lives in this process). */
function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [bin, ...args], { cwd: root, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

const route = (handler: (req: RecordedRequest) => FakeReply) => server.handle(handler)

// Each case starts the built CLI as a real process.
describe('switchboard CLI with native providers', { timeout: 60_000 }, () => {
  it('chat anthropic/… --base-url streams the reply to stdout', async () => {
    route(() => ({ headers: ANTHROPIC_SSE, chunks: anthropicTextReply(['Hello', ' from Claude']) }))
    const r = await cli(['chat', 'anthropic/claude-3-5-haiku-20241022', '--base-url', server.url, 'hi'], { ANTHROPIC_API_KEY: 'sk-ant-cli' })
    expect(r.stderr).toBe('')
    expect(r.stdout).toBe('Hello from Claude\n')
    expect(r.code).toBe(0)
    expect(server.requests.at(-1)!.headers['x-api-key']).toBe('sk-ant-cli')
  })

  it('chat reports a provider error with its type and exit code 1', async () => {
    route(() => ({ status: 403, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'error', error: { type: 'permission_error', message: 'region' } }) }))
    const r = await cli(['chat', 'anthropic/claude-3-5-haiku-20241022', '--base-url', server.url, 'hi'], { ANTHROPIC_API_KEY: 'sk-ant-cli' })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('LocationNotSupportError')
  })

  it('chat google/… streams Gemini', async () => {
    route(() => ({ headers: GEMINI_SSE, chunks: geminiTextReply(['Gem', 'ini']) }))
    const r = await cli(['chat', 'google/gemini-2.0-flash', '--base-url', server.url, 'hi'], { GOOGLE_API_KEY: 'AIza-cli' })
    expect(r.stdout).toBe('Gemini\n')
    expect(r.code).toBe(0)
  })

  it('chat azure/… uses the deployment and api-key header', async () => {
    route(() => ({ headers: SSE_HEADERS, chunks: openAIChatReply(['Az', 'ure']) }))
    const r = await cli(['chat', 'azure/gpt-4o', '--base-url', server.url, 'hi'], { AZURE_API_KEY: 'az-cli' })
    expect(r.stdout).toBe('Azure\n')
    expect(server.requests.at(-1)!.path).toContain('/openai/deployments/gpt-4o/chat/completions')
  })

  it('chat cloudflare/… posts to the model path (base URL instead of account id)', async () => {
    route(() => ({ headers: SSE_HEADERS, chunks: workersAIReply(['Work', 'ers']) }))
    const r = await cli(['chat', 'cloudflare/@cf/qwen/qwq-32b', '--base-url', `${server.url}/client/v4/accounts/a/ai/run`, 'hi'], { CLOUDFLARE_API_KEY: 'cf-cli' })
    expect(r.stdout).toBe('Workers\n')
    expect(server.requests.at(-1)!.path).toBe('/client/v4/accounts/a/ai/run/@cf/qwen/qwq-32b')
  })

  it('chat huggingface/… and azureai/… stream over the OpenAI wire', async () => {
    route(() => ({ headers: SSE_HEADERS, chunks: openAIChatReply(['ok']) }))
    const hf = await cli(['chat', 'huggingface/Qwen/Qwen2.5-72B-Instruct', '--base-url', server.url, 'hi'], { HUGGINGFACE_API_KEY: 'hf-cli' })
    expect(hf.stdout).toBe('ok\n')
    const az = await cli(['chat', 'azureai/DeepSeek-V3', '--base-url', server.url, 'hi'], { AZUREAI_API_KEY: 'azai-cli' })
    expect(az.stdout).toBe('ok\n')
  })

  it('models anthropic --remote lists GET /v1/models', async () => {
    route(() => ({
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ data: [{ type: 'model', id: 'claude-3-5-haiku-20241022', display_name: 'Claude Haiku 3.5', created_at: '2024-10-22T00:00:00Z' }], has_more: false })
    }))
    const r = await cli(['models', 'anthropic', '--remote', '--base-url', server.url, '--json'], { ANTHROPIC_API_KEY: 'sk-ant-cli' })
    expect(r.code).toBe(0)
    const models = JSON.parse(r.stdout) as Array<{ id: string; displayName: string }>
    expect(models).toEqual([expect.objectContaining({ id: 'claude-3-5-haiku-20241022', displayName: 'Claude Haiku 3.5' })])
    expect(server.requests.at(-1)!.path).toMatch(/^\/v1\/models/)
  })

  it('models google --remote lists GET /v1beta/models', async () => {
    route(() => ({
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ models: [{ name: 'models/gemini-2.0-flash', displayName: 'Gemini 2.0 Flash', inputTokenLimit: 1048576, outputTokenLimit: 8192 }] })
    }))
    const r = await cli(['models', 'google', '--remote', '--base-url', server.url], { GOOGLE_API_KEY: 'AIza-cli' })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('gemini-2.0-flash')
    expect(r.stdout).toContain('1 model from google')
  })

  it('models cloudflare --remote uses the account model search', async () => {
    route(() => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify({ success: true, result: [{ name: '@cf/qwen/qwq-32b', task: { name: 'Text Generation' } }] }) }))
    const r = await cli(['models', 'cloudflare', '--remote', '--base-url', `${server.url}/client/v4/accounts/a/ai/run`, '--json'], { CLOUDFLARE_API_KEY: 'cf-cli' })
    expect(r.code).toBe(0)
    expect((JSON.parse(r.stdout) as Array<{ id: string }>).map((m) => m.id)).toEqual(['@cf/qwen/qwq-32b'])
    expect(server.requests.at(-1)!.path).toBe('/client/v4/accounts/a/ai/models/search')
  })

  it('embed google/… prints vectors', async () => {
    route(() => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify({ embeddings: [{ values: [0.25, 0.5] }] }) }))
    const r = await cli(['embed', 'google/text-embedding-004', '--base-url', server.url, '--json', 'hello'], { GOOGLE_API_KEY: 'AIza-cli' })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('0.25')
    expect(server.requests.at(-1)!.path).toContain(':batchEmbedContents')
  })
})
