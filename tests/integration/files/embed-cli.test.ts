import { Readable, Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CliIO } from '../../../src/cli/command'
import { main } from '../../../src/cli/main'
import { startFakeHttpServer, type FakeServer } from '../../fixtures/fake-anthropic/fake-http-server'
import { startFakeOllama, type FakeOllama } from '../../fixtures/fake-ollama'
import { startFakeOpenAI, type FakeOpenAI } from '../../fixtures/fake-openai'

// `switchboard embed` against the three families the issue names: OpenAI-compatible (float
// vectors in one call), Ollama (one call per input) and Bedrock Titan (one signed invoke per input).
let openai: FakeOpenAI
let ollama: FakeOllama
let bedrock: FakeServer

class Capture extends Writable {
  text = ''
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void) {
    this.text += chunk.toString()
    done()
  }
}

async function cli(args: string[], env: Record<string, string>) {
  const stdout = new Capture()
  const stderr = new Capture()
  const io: CliIO = { stdout, stderr, stdin: Object.assign(Readable.from([]), { isTTY: true }), env }
  const code = await main(args, io)
  return { code, stdout: stdout.text, stderr: stderr.text }
}

beforeAll(async () => {
  openai = await startFakeOpenAI()
  ollama = await startFakeOllama()
  // Bedrock's InvokeModel wire: POST /model/<id>/invoke over HTTP/2 (as the AWS SDK speaks it), JSON in and out, SigV4-signed.
  bedrock = await startFakeHttpServer((req) => {
    const parsed = req.json as { inputText: string; dimensions?: number }
    const n = parsed.dimensions ?? 3
    return { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ embedding: Array.from({ length: n }, (_, i) => parsed.inputText.length + i / 10), inputTextTokenCount: 2 }) }
  }, { http2: true })
})

afterAll(async () => {
  await openai.close()
  await ollama.close()
  await bedrock.close()
})

describe('switchboard embed', () => {
  it('OpenAI-compatible: float vectors on stdout, their count and dimensions on stderr', async () => {
    openai.enqueue('/embeddings', { kind: 'json', body: { object: 'list', data: [{ index: 0, embedding: [1, 0, 0.5] }, { index: 1, embedding: [0, 1, 0.5] }] } })
    const r = await cli(['embed', 'openai/text-embedding-3-small', '--base-url', openai.url, 'a', 'b'], { OPENAI_API_KEY: 'sk-embed-cli-0123456789' })
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('[1,0,0.5]\n[0,1,0.5]\n')
    expect(r.stderr).toBe('2 vectors × 3 dimensions\n')
    expect(openai.requestsTo('/embeddings')[0]?.body).toMatchObject({ encoding_format: 'float', input: ['a', 'b'] })
  })

  it('Ollama: one call per input, --json carries the dimensions', async () => {
    const before = ollama.requests.filter((r) => r.path === '/api/embeddings').length
    const r = await cli(['embed', 'ollama/llama3.2', '--base-url', ollama.url, '--json', 'first', 'second', 'third'], {})
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout) as { embeddings: number[][]; dimensions: number }
    expect(out.dimensions).toBe(8)
    expect(out.embeddings).toHaveLength(3)
    expect(out.embeddings[0]).not.toEqual(out.embeddings[1])
    const calls = ollama.requests.filter((req) => req.path === '/api/embeddings').slice(before)
    expect(calls.map((c) => (c.body as { prompt: string }).prompt)).toEqual(['first', 'second', 'third'])
  })

  it('Bedrock Titan: one signed invoke per input with the requested dimensions', async () => {
    const env = { AWS_ACCESS_KEY_ID: 'AKIAEMBEDCLITEST', AWS_SECRET_ACCESS_KEY: 'secret-embed-cli-test', AWS_REGION: 'us-east-1' }
    const r = await cli(['embed', 'bedrock/amazon.titan-embed-text-v2:0', '--base-url', bedrock.url, '--dimensions', '4', 'hello', 'hi'], env)
    expect(r.stderr).toBe('2 vectors × 4 dimensions\n')
    expect(r.code).toBe(0)
    expect(r.stdout.trim().split('\n').map((l) => JSON.parse(l) as number[])).toEqual([
      [5, 5.1, 5.2, 5.3],
      [2, 2.1, 2.2, 2.3]
    ])
    expect(bedrock.requests.map((q) => [decodeURIComponent(q.path), q.json])).toEqual([
      ['/model/amazon.titan-embed-text-v2:0/invoke', { inputText: 'hello', dimensions: 4, normalize: true }],
      ['/model/amazon.titan-embed-text-v2:0/invoke', { inputText: 'hi', dimensions: 4, normalize: true }]
    ])
    expect(String(bedrock.requests[0]?.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAEMBEDCLITEST\//)
  })

  it('an unknown model on Ollama fails with its error and exit 1', async () => {
    const r = await cli(['embed', 'ollama/not-pulled', '--base-url', ollama.url, 'x'], {})
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^error: /)
  })
})
