import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { resolveProviderKey } from '../../../src/core/runtime/key-source'
import { chatChunks, errorBody, startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai/index'
import { cli } from './cli-run'
import { SECRET } from './helpers'

/** The chat / embed / speak / transcribe commands against the fake server, in-process and as a real child process. */
let fake: FakeOpenAI
beforeAll(async () => {
  fake = await startFakeOpenAI()
})
afterAll(async () => {
  await fake.close()
})
beforeEach(() => fake.reset())


describe('switchboard chat', () => {
  it('streams text to stdout and reasoning to stderr; exit 0', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['Hello', ' there'], { reasoning: ['I think'] }) })
    const r = await cli(['chat', 'openai/gpt-4o-mini', '--base-url', fake.url, 'hi'])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('Hello there\n')
    expect(r.stderr).toContain('I think')
    expect(r.stderr).not.toContain('Hello')
  })

  it('passes --system, --temperature, --top-p, --max-tokens, --reasoning-effort to the wire', async () => {
    await cli(['chat', 'deepseek/deepseek-chat', '--base-url', fake.url, '--system', 'be terse', '--temperature', '0.3', '--top-p', '0.9', '--max-tokens', '64', '--reasoning-effort', 'low', 'hi'], { DEEPSEEK_API_KEY: SECRET })
    expect(fake.requestsTo('/chat/completions')[0]!.body).toMatchObject({
      model: 'deepseek-chat',
      messages: [{ role: 'system', content: 'be terse' }, { role: 'user', content: 'hi' }],
      temperature: 0.3,
      top_p: 0.9,
      max_tokens: 64,
      reasoning_effort: 'low'
    })
  })

  it('--json prints one {"type","data"} object per line', async () => {
    const r = await cli(['chat', 'openai/gpt-4o-mini', '--base-url', fake.url, '--json', 'hi'])
    expect(r.code).toBe(0)
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; data: unknown })
    expect(lines.map((l) => l.type)).toEqual(['text', 'text', 'stop', 'usage', 'speed'])
    for (const line of lines) expect(Object.keys(line).sort()).toEqual(['data', 'type'])
  })

  it('reads the prompt from stdin with -', async () => {
    await cli(['chat', 'openai/gpt-4o-mini', '--base-url', fake.url, '-'], {}, 'from stdin\n')
    expect((fake.requestsTo('/chat/completions')[0]!.body as { messages: Array<{ content: string }> }).messages[0]!.content).toBe('from stdin\n')
  })

  it('an error exits non-zero with the error type; the key is never printed', async () => {
    fake.enqueue('/chat/completions', { kind: 'json', status: 401, body: errorBody(`Incorrect API key provided: ${SECRET}`, 'invalid_api_key') })
    const r = await cli(['chat', 'openai/gpt-4o-mini', '--base-url', fake.url, 'hi'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^error: InvalidProviderAPIKey: /m)
    expect(r.stdout + r.stderr).not.toContain(SECRET)
  })

  it('an interrupted stream exits 3 and keeps the partial text', async () => {
    fake.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['par', 'tial', 'x']), truncateAfter: 3 })
    const r = await cli(['chat', 'openai/gpt-4o-mini', '--base-url', fake.url, 'hi'])
    expect(r.code).toBe(3)
    expect(r.stdout).toContain('partial')
    expect(r.stderr).toMatch(/error: ProviderNetworkError/)
  })

  it('keys: --api-key-env wins, then <PROVIDER>_API_KEY; a missing key is a named error before any request', async () => {
    await cli(['chat', 'openai/gpt-4o-mini', '--base-url', fake.url, '--api-key-env', 'MY_KEY', 'hi'], { MY_KEY: 'sk-from-flag-env-123' })
    expect(fake.requestsTo('/chat/completions')[0]!.headers['authorization']).toBe('Bearer sk-from-flag-env-123')
    const unset = await cli(['chat', 'openai/gpt-4o-mini', '--base-url', fake.url, '--api-key-env', 'NOPE', 'hi'])
    expect(unset.code).toBe(1)
    expect(unset.stderr).toContain('NOPE')
    const missing = await cli(['chat', 'groq/llama-3.3-70b-versatile', '--base-url', fake.url, 'hi'], { OPENAI_API_KEY: '' })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/InvalidProviderAPIKey/)
    expect(fake.requestsTo('/chat/completions')).toHaveLength(1)
  })

  it('the key source order is flag env, env, keychain; keyless local servers skip the keychain', async () => {
    const keychain = async () => 'sk-from-keychain-456'
    expect(await resolveProviderKey({ providerId: 'openai', env: { OPENAI_API_KEY: 'a' }, apiKeyEnv: 'X', keychain }).catch((e: Error) => e.message)).toMatch(/X/)
    expect((await resolveProviderKey({ providerId: 'openai', env: { OPENAI_API_KEY: 'env-key' }, keychain })).source).toBe('env')
    expect(await resolveProviderKey({ providerId: 'openai', env: {}, keychain })).toEqual({ apiKey: 'sk-from-keychain-456', source: 'keychain' })
    expect((await resolveProviderKey({ providerId: 'lmstudio', env: {}, keychain })).source).toBe('none')
    expect((await resolveProviderKey({ providerId: 'ai302', env: { AI302_API_KEY: 'k' } })).apiKey).toBe('k')
  })

  it('usage errors exit 2', async () => {
    expect((await cli(['chat', 'no-slash', 'hi'])).code).toBe(2)
    expect((await cli(['chat', 'openai/gpt-4o', '--reasoning-effort', 'max', 'hi'])).code).toBe(2)
  })
})

describe('switchboard embed / speak / transcribe', () => {
  it('embed prints one vector per input', async () => {
    fake.enqueue('/embeddings', { kind: 'json', body: { object: 'list', data: [{ index: 0, embedding: [1, 0] }, { index: 1, embedding: [0, 1] }], usage: { prompt_tokens: 2, total_tokens: 2 } } })
    const r = await cli(['embed', 'openai/text-embedding-3-small', '--base-url', fake.url, 'a', 'b'])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('[1,0]\n[0,1]\n')
    expect(fake.requestsTo('/embeddings')[0]!.body).toMatchObject({ input: ['a', 'b'], encoding_format: 'float' })
  })

  it('speak writes the audio file; transcribe prints the text', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-cli-'))
    const file = join(dir, 'out.mp3')
    const spoken = await cli(['speak', 'openai/tts-1', '--base-url', fake.url, '--voice', 'nova', '--out', file, 'hello'])
    expect(spoken.code).toBe(0)
    expect(readFileSync(file).subarray(0, 3).toString('latin1')).toBe('ID3')
    expect(fake.requestsTo('/audio/speech')[0]!.body).toMatchObject({ voice: 'nova', input: 'hello', response_format: 'mp3' })
    writeFileSync(join(dir, 'in.wav'), Buffer.from([1, 2, 3]))
    const heard = await cli(['transcribe', 'openai/whisper-1', '--base-url', fake.url, join(dir, 'in.wav')])
    expect(heard.code).toBe(0)
    expect(heard.stdout).toBe('hello from the fake server\n')
  })

  it('a provider without the call says so', async () => {
    const r = await cli(['speak', 'deepseek/x', '--base-url', fake.url, '--out', '-', 'hello'], { DEEPSEEK_API_KEY: SECRET })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('does not offer text-to-speech')
  })
})

describe('switchboard models --remote', () => {
  it('lists the live models through the runtime, processed by the catalogue', async () => {
    const r = await cli(['models', 'openai', '--remote', '--base-url', fake.url, '--json'])
    expect(r.code).toBe(0)
    const models = JSON.parse(r.stdout) as Array<{ id: string; displayName: string }>
    expect(models.map((m) => m.id)).toContain('gpt-4o-mini')
    expect(models.find((m) => m.id === 'gpt-4o-mini')!.displayName).toBe('GPT-4o mini')
    expect(fake.requestsTo('/models')[0]!.headers['authorization']).toBe(`Bearer ${SECRET}`)
  })

  it('prints a table, and works for a custom id with --base-url', async () => {
    const r = await cli(['models', 'my-proxy', '--remote', '--base-url', fake.url], { MY_PROXY_API_KEY: SECRET })
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^ID\s+TYPE/)
    expect(r.stdout).toContain('gpt-4o-mini')
  })

  it('a failing list exits 1 with the error type; ModelScope warns instead', async () => {
    fake.enqueue('/models', { kind: 'json', status: 401, body: errorBody('bad key') })
    const r = await cli(['models', 'openai', '--remote', '--base-url', fake.url])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('error: InvalidProviderAPIKey')
    fake.enqueue('/models', { kind: 'json', status: 401, body: errorBody('bad key') })
    const warned = await cli(['models', 'modelscope', '--remote', '--base-url', fake.url, '--json'], { MODELSCOPE_API_KEY: SECRET })
    expect(warned.code).toBe(0)
    expect(warned.stderr).toMatch(/warning: .*ModelScope/)
    expect(JSON.parse(warned.stdout)).toEqual([])
  })

  it('without --remote the built-in catalogue is still listed (no network)', async () => {
    const r = await cli(['models', 'openai', '--json'])
    expect(r.code).toBe(0)
    expect(fake.requestsTo('/models')).toHaveLength(0)
  })
})

describe('the real binary', () => {
  it('node bin/switchboard.mjs chat … prints text, exit 0; errors give a non-zero exit', async () => {
    const run = promisify(execFile)
    const env = { ...process.env, OPENAI_API_KEY: SECRET }
    const ok = await run(process.execPath, ['bin/switchboard.mjs', 'chat', 'openai/gpt-4o-mini', '--base-url', fake.url, 'hi'], { env, cwd: process.cwd() })
    expect(ok.stdout).toBe('Hello world\n')
    fake.enqueue('/chat/completions', { kind: 'json', status: 404, body: errorBody('The model `nope` does not exist', 'model_not_found') })
    const failed = await run(process.execPath, ['bin/switchboard.mjs', 'chat', 'openai/nope', '--base-url', fake.url, 'hi'], { env, cwd: process.cwd() }).catch((e: { code: number; stderr: string }) => e)
    expect((failed as { code: number }).code).toBe(1)
    expect((failed as { stderr: string }).stderr).toContain('error: ModelNotFound')
  }, 30_000)
})
