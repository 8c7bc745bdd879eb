import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { main } from '../../../src/cli/main'
import { catalogueHandlers } from '../../../src/core/bridge/handlers/catalogue'
import { createInProcessClient } from '../../../src/core/bridge/in-process'
import { Router } from '../../../src/core/bridge/router'
import { catalogueProcedures } from '../../../src/shared/bridge/procedures/catalogue'
import type { MergedModel } from '../../../src/shared/catalogue/types'

describe('catalogue bridge procedures (over the in-process transport: plain data only)', () => {
  const { client } = createInProcessClient(new Router(catalogueProcedures, catalogueHandlers()))

  it('lists the provider cards', async () => {
    const r = await client.call('catalogue.providers', {})
    expect(r.ok && r.value).toHaveLength(58)
    expect(r.ok && r.value.find((c) => c.id === 'openai')).toMatchObject({ name: 'OpenAI', defaultBaseURL: 'https://api.openai.com/v1', supportResponsesApi: true })
  })

  it("lists one provider's builtin models as merged entries, optionally by type", async () => {
    const all = await client.call('catalogue.models', { providerId: 'openai' })
    const images = await client.call('catalogue.models', { providerId: 'openai', type: 'image' })
    expect(all.ok && all.value.every((m) => m.providerId === 'openai' && m.source === 'builtin')).toBe(true)
    expect(images.ok && images.value.map((m) => m.type)).toEqual(['image', 'image', 'image', 'image'])
  })

  it('gives the merged list and a lookup with the any-provider fallback', async () => {
    const merged = await client.call('catalogue.merged', {})
    expect(merged.ok && merged.value).toHaveLength(1477)
    const hit = await client.call('catalogue.lookup', { modelId: 'dall-e-3', providerId: 'openai' })
    expect(hit.ok && hit.value?.providerId).not.toBe('openai') // not in openai's list: first provider that has it
    const miss = await client.call('catalogue.lookup', { modelId: 'no-such-model' })
    expect(miss).toEqual({ ok: true, value: null })
  })

  it('fails with a typed error for an unknown provider and validates input', async () => {
    const r = await client.call('catalogue.models', { providerId: 'nope' })
    expect(r.ok === false && r.error).toMatchObject({ errorType: 'UnknownProvider', provider: 'nope' })
    const invalid = await client.call('catalogue.models', { providerId: 'Bad Id!' })
    expect(invalid.ok === false && invalid.error.errorType).toBe('ValidationError')
  })
})

function capture() {
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  let out = ''
  let err = ''
  stdout.on('data', (d) => (out += String(d)))
  stderr.on('data', (d) => (err += String(d)))
  return { io: { stdout, stderr, stdin: new PassThrough(), env: {} }, out: () => out, err: () => err }
}

describe('switchboard models / providers', () => {
  it('models <provider> --json prints an array of merged entries', async () => {
    const c = capture()
    expect(await main(['models', 'deepseek', '--json'], c.io)).toBe(0)
    const list = JSON.parse(c.out()) as MergedModel[]
    expect(list.length).toBeGreaterThan(0)
    for (const m of list) expect(m).toMatchObject({ providerId: 'deepseek', source: 'builtin', abilities: expect.any(Object) })
  })

  it('models <provider> prints a table with a count', async () => {
    const c = capture()
    expect(await main(['models', 'anthropic'], c.io)).toBe(0)
    expect(c.out()).toMatch(/^ID\s+TYPE\s+CONTEXT/)
    expect(c.out()).toMatch(/\n11 models\n$/)
  })

  it('an unknown provider is exit code 2 with a message naming it', async () => {
    const c = capture()
    expect(await main(['models', 'nope'], c.io)).toBe(2)
    expect(c.err()).toContain("Unknown provider 'nope'")
  })

  it('providers lists every provider card', async () => {
    const c = capture()
    expect(await main(['providers', '--json'], c.io)).toBe(0)
    expect((JSON.parse(c.out()) as unknown[]).length).toBe(58)
  })
})
