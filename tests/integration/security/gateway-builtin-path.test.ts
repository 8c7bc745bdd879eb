import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import OpenAI from 'openai'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { Result } from '../../../src/shared/errors/app-error'
import { writeTinyLlamaGguf } from '../../fixtures/gguf/tiny-llama'
import { readyTestCore } from '../test-core'

// An attacker holds a gateway key. The owner's models are the library (<data>/models) and one
// folder set on the Local models page; elsewhere on the host lies a GGUF the owner never listed,
// a folder and a file that are no models. Through the local API a model is reached by its listed
// name and nothing else: no host path loads, and no answer tells whether a path exists.
let dir: string
let core: Core
let client: BridgeClient<Contract>
let sdk: OpenAI
let gateway: string
let secret: string
let outside: string

const ok = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-sec-builtin-'))
  const dataDir = join(dir, 'data')
  mkdirSync(join(dataDir, 'models'), { recursive: true })
  writeTinyLlamaGguf(join(dataDir, 'models', 'tiny.gguf'))
  mkdirSync(join(dir, 'shelf'))
  writeTinyLlamaGguf(join(dir, 'shelf', 'shelved.gguf'))
  mkdirSync(join(dir, 'outside'))
  outside = join(dir, 'outside', 'secret.gguf')
  writeTinyLlamaGguf(outside)
  writeFileSync(join(dir, 'outside', 'notes.gguf'), 'not a model')
  const app = await readyTestCore('sb-sec-builtin-', { dataDir, secrets: { backend: new MemoryBackend() }, localApi: { port: 0 } })
  core = app.core
  client = app.client
  ok(await client.call('engine.addPath', { path: join(dir, 'shelf') }))
  secret = ok(await client.call('localApi.createKey', { name: 'attacker' })).secret
  gateway = ok(await client.call('localApi.update', { enabled: true })).url!
  sdk = new OpenAI({ apiKey: secret, baseURL: `${gateway}/v1`, maxRetries: 0 })
}, 60_000)

afterAll(async () => {
  await core?.close()
  rmSync(dir, { recursive: true, force: true })
})

const chat = (model: string) => sdk.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4, temperature: 0 })

/** What the local API answers for a model name, with the name itself taken out of the message. */
async function answerFor(model: string, route: 'chat/completions' | 'embeddings' = 'chat/completions'): Promise<{ status: number; body: string }> {
  const body = route === 'embeddings' ? { model, input: 'x' } : { model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4 }
  const response = await fetch(`${gateway}/v1/${route}`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const text = await response.text()
  const name = model.slice('builtin/'.length)
  return { status: response.status, body: text.split(JSON.stringify(name).slice(1, -1)).join('<name>') }
}

const loaded = async () => ok(await client.call('engine.status', {})).models.filter((m) => m.loaded).map((m) => m.id)

describe('the local API reaches only the models the owner listed, by name', () => {
  it('control: a library model and a model in a folder set on the Local models page both chat by name', async () => {
    expect((await chat('builtin/tiny')).choices[0]!.message.content).toEqual(expect.any(String))
    expect((await chat('builtin/shelved')).choices[0]!.message.content).toEqual(expect.any(String))
    expect(await loaded()).toEqual(expect.arrayContaining(['tiny', 'shelved']))
  }, 120_000)

  it('refuses a GGUF the owner never listed, by any spelling of its path, and loads nothing', async () => {
    const before = await loaded()
    for (const model of [`builtin/${outside}`, `builtin/${outside.slice(1)}`, `builtin/${outside.replace(/\.gguf$/, '')}`, `builtin/${join(dir, 'data', 'models', '..', '..', 'outside', 'secret.gguf')}`]) {
      const error = await chat(model).catch((e: unknown) => e)
      expect(error, model).toBeInstanceOf(OpenAI.NotFoundError)
      expect((error as Error).message).not.toMatch(/No model file|cannot be read|not a GGUF/)
    }
    const embed = await answerFor(`builtin/${outside}`, 'embeddings')
    expect(embed.status).toBe(404)
    expect(await loaded()).toEqual(before)
    expect(ok(await client.call('engine.status', {})).models.map((m) => m.path)).not.toContain(outside)
  }, 60_000)

  it('answers the same for a path that exists and one that does not: a file, a model, a folder, a non-model', async () => {
    const missing = await answerFor(`builtin/${join(dir, 'outside', 'nothing-here.gguf')}`)
    expect(missing.status).toBe(404)
    for (const path of [outside, join(dir, 'outside', 'notes.gguf'), join(dir, 'outside'), '/etc/hostname', '/etc/passwd.gguf']) {
      expect(await answerFor(`builtin/${path}`), path).toEqual(missing)
    }
  })

  it('a model the owner added a moment ago is reached at once, not after the list is next read', async () => {
    // The list was just read (the calls above); a file dropped into the library now is listed by the next look at the disk.
    expect((await sdk.models.list()).data.map((m) => m.id)).not.toContain('builtin/fresh')
    writeTinyLlamaGguf(join(dir, 'data', 'models', 'fresh.gguf'))
    expect((await chat('builtin/fresh')).choices[0]!.message.content).toEqual(expect.any(String))
  }, 60_000)

  it('the next good call still chats', async () => {
    expect((await chat('builtin/tiny')).choices[0]!.message.content).toEqual(expect.any(String))
  }, 60_000)
})
