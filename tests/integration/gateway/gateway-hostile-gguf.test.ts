import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import OpenAI from 'openai'
import Anthropic from '@anthropic-ai/sdk'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import type { Result } from '../../../src/shared/errors/app-error'
import { encodeGguf } from '../../fixtures/gguf/gguf-writer'
import { tinyLlamaGguf, writeTinyLlamaGguf } from '../../fixtures/gguf/tiny-llama'
import { knownHeader } from '../../fixtures/gguf-headers/write-gguf'
import { readyTestCore } from '../test-core'

// Hostile model files in the owner's library, asked for through the local API: each is a bad
// model file (400 or 422, the file named), never 401 `invalid_api_key`, which a client reads
// as a bad key and asks its user for a new one. The host keeps running; a good model still chats.
const u32 = (v: number) => Buffer.from(Uint32Array.of(v).buffer)
const u64 = (v: bigint) => {
  const b = Buffer.alloc(8)
  b.writeBigUInt64LE(v)
  return b
}
const HOSTILE: Record<string, Buffer> = {
  'wrong-magic': Buffer.concat([Buffer.from('GGML'), u32(3), u64(0n), u64(0n)]),
  'version-99': Buffer.concat([Buffer.from('GGUF'), u32(99), u64(0n), u64(0n)]),
  'truncated-header': encodeGguf(tinyLlamaGguf()).subarray(0, 3000),
  'cut-known-header': knownHeader('tiny').subarray(0, 300),
  'string-2-63': Buffer.concat([Buffer.from('GGUF'), u32(3), u64(0n), u64(1n), u64(1n << 63n), Buffer.from('k')]),
  'million-keys': Buffer.concat([Buffer.from('GGUF'), u32(3), u64(0n), u64(2_000_000n)]),
  'absurd-count': Buffer.concat([Buffer.from('GGUF'), u32(3), u64(0n), Buffer.from([255, 255, 255, 255, 255, 255, 0, 0])]),
  'unknown-type': Buffer.concat([Buffer.from('GGUF'), u32(3), u64(0n), u64(1n), u64(1n), Buffer.from('k'), u32(77)]),
  'header-only': Buffer.from('GGUF'),
  empty: Buffer.alloc(0),
  'html-page': Buffer.from('<html>404 Not Found</html>')
}

let dir: string
let core: Core
let url: string
let secret: string
const ok = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-gateway-hostile-gguf-'))
  const dataDir = join(dir, 'data')
  mkdirSync(join(dataDir, 'models'), { recursive: true })
  writeTinyLlamaGguf(join(dataDir, 'models', 'tiny.gguf'))
  for (const [name, bytes] of Object.entries(HOSTILE)) writeFileSync(join(dataDir, 'models', `${name}.gguf`), bytes)
  const app = await readyTestCore('sb-gateway-hostile-gguf-', { dataDir, secrets: { backend: new MemoryBackend() }, localApi: { port: 0 } })
  core = app.core
  const client = app.client
  secret = ok(await client.call('localApi.createKey', { name: 'agent' })).secret
  url = ok(await client.call('localApi.update', { enabled: true })).url!
}, 60_000)

afterAll(async () => {
  await core?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('a hostile GGUF in the library, through the local API', () => {
  for (const name of Object.keys(HOSTILE)) {
    it(`${name}: a bad model file (4xx, named), not a bad key`, async () => {
      const sdk = new OpenAI({ apiKey: secret, baseURL: `${url}/v1`, maxRetries: 0 })
      const error = await sdk.chat.completions.create({ model: `builtin/${name}`, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4 }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(OpenAI.APIError)
      expect(error).not.toBeInstanceOf(OpenAI.AuthenticationError)
      const failure = error as InstanceType<typeof OpenAI.APIError>
      expect([400, 422]).toContain(failure.status)
      expect(failure.code).not.toBe('invalid_api_key')
      expect(failure.message).toContain(name)
      const anthropic = await new Anthropic({ apiKey: secret, baseURL: url, maxRetries: 0 }).messages.create({ model: `builtin/${name}`, max_tokens: 4, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e)
      expect(anthropic).toBeInstanceOf(Anthropic.APIError)
      expect(anthropic).not.toBeInstanceOf(Anthropic.AuthenticationError)
      expect([400, 422]).toContain((anthropic as InstanceType<typeof Anthropic.APIError>).status)
    })
  }

  it('the next good model still chats', async () => {
    const sdk = new OpenAI({ apiKey: secret, baseURL: `${url}/v1`, maxRetries: 0 })
    const reply = await sdk.chat.completions.create({ model: 'builtin/tiny', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4, temperature: 0 })
    expect(reply.choices[0]!.finish_reason).toBe('length')
  }, 60_000)
})
