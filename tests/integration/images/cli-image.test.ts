import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable, Writable } from 'node:stream'
import { promisify } from 'node:util'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { main } from '../../../src/cli/main'
import type { CliIO } from '../../../src/cli/command'
import { pngBytes, startFakeImages, type FakeImages } from '../../fixtures/fake-images/index'
import { KEY } from './helpers'

/** `switchboard image` against the fake image server, in-process and as a real child process. */
let fake: FakeImages
beforeAll(async () => {
  fake = await startFakeImages()
})
afterAll(() => fake.close())
beforeEach(() => {
  fake.requests.length = 0
})

class Capture extends Writable {
  text = ''
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void) {
    this.text += chunk.toString()
    done()
  }
}

async function cli(args: string[], env: Record<string, string> = {}) {
  const stdout = new Capture()
  const stderr = new Capture()
  const io: CliIO = { stdout, stderr, stdin: Object.assign(Readable.from([]), { isTTY: true }), env: { OPENAI_API_KEY: KEY, BFL_API_KEY: KEY, ...env } }
  const code = await main(args, io)
  return { code, stdout: stdout.text, stderr: stderr.text }
}

const PNG = pngBytes(16, 16, [10, 200, 10])

describe('switchboard image', () => {
  it('generates, writes the file into --out and prints its path', async () => {
    fake.enqueue('POST /v1/images/generations', { json: { data: [{ b64_json: Buffer.from(PNG).toString('base64') }] } })
    const out = mkdtempSync(join(tmpdir(), 'sb-cli-img-'))
    const r = await cli(['image', 'openai/gpt-image-1', '--base-url', `${fake.origin}/v1`, '--size', '1024x1536', '--out', out, 'a', 'green', 'square'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const path = r.stdout.trim()
    expect(path.startsWith(out)).toBe(true)
    expect(path).toMatch(/a-green-square-\d+\.png$/)
    expect(readFileSync(path).equals(Buffer.from(PNG))).toBe(true)
    expect(fake.requestsTo('POST /v1/images/generations')[0]!.body).toMatchObject({ model: 'gpt-image-1', prompt: 'a green square', size: '1024x1536', n: 1 })
  })

  it('a polling provider: width, height, steps, cfg, seed and a reference image reach the wire; progress goes to stderr', async () => {
    fake.setDefault('POST /v1/flux-dev', { json: { id: 'j', polling_url: `${fake.origin}/poll/j` } })
    fake.enqueue('GET /poll/j', { json: { status: 'Pending' } }, { json: { status: 'Ready', result: { sample: `${fake.origin}/files/s.png` } } })
    const dir = mkdtempSync(join(tmpdir(), 'sb-cli-ref-'))
    const ref = join(dir, 'ref.png')
    writeFileSync(ref, PNG)
    const out = join(dir, 'out')
    const r = await cli(['image', 'bfl/flux-dev', '--base-url', fake.origin, '--width', '1024', '--height', '768', '--steps', '20', '--cfg', '3.5', '--seed', '99', '--image', ref, '--out', out, 'harbour'])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('polling attempt 1 (Pending)')
    expect(readdirSync(out)).toHaveLength(1)
    expect(fake.requestsTo('POST /v1/flux-dev')[0]!.body).toEqual({
      prompt: 'harbour',
      seed: 99,
      width: 1024,
      height: 768,
      steps: 20,
      guidance: 3.5,
      image_prompt: `data:image/png;base64,${Buffer.from(PNG).toString('base64')}`
    })
  }, 20_000)

  it('rejects values outside the model schema before any request, naming what is allowed', async () => {
    const out = mkdtempSync(join(tmpdir(), 'sb-cli-bad-'))
    const size = await cli(['image', 'openai/gpt-image-1', '--base-url', `${fake.origin}/v1`, '--size', '800x600', '--out', out, 'x'])
    expect(size.code).toBe(2)
    expect(size.stderr).toContain('size must be one of auto, 1024x1024, 1536x1024, 1024x1536')
    const width = await cli(['image', 'bfl/flux-dev', '--base-url', fake.origin, '--width', '1000', '--out', out, 'x'])
    expect(width.code).toBe(2)
    expect(width.stderr).toContain('width must be between 256 and 1440 in steps of 32 (got 1000)')
    const steps = await cli(['image', 'bfl/flux-dev', '--base-url', fake.origin, '--steps', 'many', '--out', out, 'x'])
    expect(steps.stderr).toContain('--steps must be a number')
    const mixed = await cli(['image', 'bfl/flux-dev', '--size', '1024x1024', '--width', '512', '--out', out, 'x'])
    expect(mixed.code).toBe(2)
    expect(fake.requests).toHaveLength(0)
  })

  it('provider failures exit 1 with the catalogue error and never print the key', async () => {
    fake.enqueue('POST /v1/images/generations', { status: 400, json: { error: { message: 'Billing hard limit has been reached', type: 'invalid_request_error', code: 'billing_hard_limit_reached' } } })
    const r = await cli(['image', 'openai/dall-e-3', '--base-url', `${fake.origin}/v1`, '--out', mkdtempSync(join(tmpdir(), 'sb-cli-f-')), 'x'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^error: \w+: .*Billing hard limit/)
    expect(r.stderr + r.stdout).not.toContain(KEY)
  })

  it('runs as a real process through bin/switchboard.mjs', async () => {
    fake.enqueue('POST /v1/images/generations', { json: { data: [{ url: `${fake.origin}/files/real.png` }] } })
    const out = mkdtempSync(join(tmpdir(), 'sb-cli-proc-'))
    const { stdout } = await promisify(execFile)(process.execPath, ['bin/switchboard.mjs', 'image', 'openai/dall-e-3', '--base-url', `${fake.origin}/v1`, '--out', out, 'lighthouse'], {
      env: { ...process.env, OPENAI_API_KEY: KEY, HOME: out }
    })
    const path = stdout.trim()
    expect(readFileSync(path).subarray(1, 4).toString()).toBe('PNG')
  }, 60_000)
})
