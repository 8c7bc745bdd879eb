import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import { ImageService } from '../../../src/core/images/image-service'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { ImageGeneration } from '../../../src/shared/data/image-generation'
import type { Result } from '../../../src/shared/errors/app-error'
import type { ImageTaskEvent } from '../../../src/shared/images/image-task'
import { FAST_POLLING, pngBytes, startFakeImages, type FakeImages } from '../../fixtures/fake-images/index'
import { KEY } from './helpers'
import { readyTestCore } from '../test-core'

// The image service end to end in the core: real runtimes against the fake image server,
// a real SQLite database and data folder, the bridge in-process.
let fake: FakeImages
let core: Core
let client: BridgeClient<Contract>
let dataDir: string
const PNG = pngBytes(64, 48)
const B64 = Buffer.from(PNG).toString('base64')

const ok = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.errorType}: ${r.error.message}`)
  return r.value
}

beforeAll(async () => {
  fake = await startFakeImages()
  dataDir = mkdtempSync(join(tmpdir(), 'sb-images-'))
  const app = await readyTestCore('sb-images-', { dataDir, secrets: { backend: new MemoryBackend() } })
  core = app.core
  client = app.client
  for (const [providerId, baseURL] of [['openai', `${fake.origin}/v1`], ['bfl', fake.origin], ['google', fake.origin]] as const) {
    ok(await client.call('providers.update', { providerId, baseURL }))
    ok(await client.call('providers.setKey', { providerId, apiKey: KEY }))
  }
  useService(4)
})
afterAll(async () => {
  await core.close()
  await fake.close()
})
beforeEach(() => {
  fake.requests.length = 0
  fake.setDefault('POST /v1/images/generations', { json: { data: [{ b64_json: B64 }] } })
  fake.setDefault('POST /v1/flux', (req) => ({ json: { id: req.path, polling_url: `${fake.origin}/poll${req.path}` } }))
  fake.setDefault('GET /poll/', { json: { status: 'Ready', result: { sample: `${fake.origin}/files/out.png` } } })
})

/** The real service with short polling and the given number of slots (handlers read it lazily). */
function useService(maxConcurrent: number) {
  core.services().images = new ImageService({
    store: core.services().store,
    dataDir,
    caller: core.services().caller,
    tasks: core.router.hub,
    polling: FAST_POLLING,
    maxConcurrent
  })
}

interface Run {
  events: ImageTaskEvent[]
  done: Promise<Result<ImageGeneration>>
  streamId: Promise<string>
}
function generate(providerId: string, modelId: string, params: Record<string, unknown>): Run {
  const events: ImageTaskEvent[] = []
  let resolveDone!: (r: Result<ImageGeneration>) => void
  const done = new Promise<Result<ImageGeneration>>((r) => (resolveDone = r))
  const handle = client.stream('images.generate', { providerId, modelId, params: { prompt: 'a quiet harbour', ...params } } as never, {
    onEvent: (e) => events.push(e as ImageTaskEvent),
    onEnd: (r) => resolveDone(r as Result<ImageGeneration>)
  })
  return { events, done, streamId: handle.streamId }
}
const states = (events: ImageTaskEvent[]) => events.flatMap((e) => (e.type === 'state' ? [e.data.state === 'polling' ? `polling ${e.data.attempt}` : e.data.state] : []))
const until = async (check: () => boolean) => {
  for (let i = 0; i < 2000 && !check(); i++) await new Promise((r) => setTimeout(r, 5))
  expect(check()).toBe(true)
}

describe('image service', () => {
  it('generates, stores the file (sha256, mime, size) and a record with prompt, parameters, provider, model, size', async () => {
    const run = generate('openai', 'gpt-image-1', { size: '1024x1024' })
    const generation = ok(await run.done)
    expect(states(run.events)).toEqual(['queued', 'running', 'saving', 'done'])
    expect(run.events[0]).toMatchObject({ type: 'created', data: { status: 'Pending', prompt: 'a quiet harbour' } })
    expect(generation).toMatchObject({ status: 'Success', providerId: 'openai', modelId: 'gpt-image-1', prompt: 'a quiet harbour' })
    expect(generation.parameters).toMatchObject({ size: '1024x1024', prompt: 'a quiet harbour' })
    expect(generation.results).toEqual([{ fileId: expect.any(String), width: 64, height: 48 }])
    const file = core.services().store.files.get(generation.results[0]!.fileId)!
    expect(file).toMatchObject({ mimeType: 'image/png', size: PNG.length, sha256: createHash('sha256').update(PNG).digest('hex') })
    expect(readFileSync(join(dataDir, file.path)).equals(Buffer.from(PNG))).toBe(true)
    const data = ok(await client.call('images.file', { fileId: file.id }))
    expect(data.dataUrl).toBe(`data:image/png;base64,${B64}`)
    const listed = ok(await client.call('data.images.list', {}))
    expect(listed.find((g) => g.id === generation.id)?.status).toBe('Success')
  })

  it('stores the seed and prices the image from the catalogue', async () => {
    fake.enqueue('GET /poll/', { json: { status: 'Pending' } }, { json: { status: 'Pending' } })
    const run = generate('bfl', 'flux-pro-1.1', { seed: 1234, width: 1024, height: 768 })
    const generation = ok(await run.done)
    expect(states(run.events)).toEqual(['queued', 'running', 'polling 1', 'polling 2', 'saving', 'done'])
    expect(generation.parameters).toMatchObject({ seed: 1234, width: 1024, height: 768 })
    expect(generation.cost).toMatchObject({ currency: 'USD', total: 0.06 })
    // The PNG the fake serves is 4×3: the file's own size wins over the requested one.
    expect(generation.results[0]).toMatchObject({ width: 4, height: 3 })
  })

  it('a generation is in the usage log with its cost (scene Image Generation), counted in the totals by day, provider, model and scene', async () => {
    const { usage } = core.services().store
    const today = new Date().toISOString().slice(0, 10)
    const totals = async () => {
      const of = async (group: 'model' | 'provider' | 'scene' | 'day', key: string) =>
        ok(await client.call('data.usage.summary', { group })).find((r) => r.key === key && r.currency === 'USD') ?? { calls: 0, cost: 0 }
      return [await of('model', 'flux-pro-1.1'), await of('provider', 'bfl'), await of('scene', 'Image Generation'), await of('day', today)]
    }
    const before = usage.list({ scene: 'Image Generation' }).length
    const totalsBefore = await totals()
    const generation = ok(await generate('bfl', 'flux-pro-1.1', { width: 1024, height: 768 }).done)
    const entries = usage.list({ scene: 'Image Generation' })
    expect(entries).toHaveLength(before + 1)
    expect(entries[0]).toMatchObject({ kind: 'image', scene: 'Image Generation', providerId: 'bfl', modelId: 'flux-pro-1.1', cost: { currency: 'USD', total: 0.06 } })
    expect(entries[0]!.cost).toEqual(generation.cost)
    // The totals the Usage page reads (data.usage.summary) count it, by model, provider, scene and day.
    const totalsAfter = await totals()
    totalsAfter.forEach((after, i) => {
      expect(after.calls - totalsBefore[i]!.calls).toBe(1)
      expect(after.cost - totalsBefore[i]!.cost).toBeCloseTo(0.06)
    })
    // A failed generation costs nothing and is not logged.
    fake.enqueue('GET /poll/', { json: { status: 'Content Moderated' } })
    expect(ok(await generate('bfl', 'flux-pro-1.1', {}).done).status).toBe('Error')
    expect(usage.list({ scene: 'Image Generation' })).toHaveLength(before + 1)
  })

  it('a random seed is recorded as the seed the provider used', async () => {
    fake.enqueue('GET /poll/', { json: { status: 'Ready', result: { sample: `${fake.origin}/files/seeded.png`, seed: 987 } } })
    const generation = ok(await generate('bfl', 'flux-dev', {}).done)
    expect(generation.parameters['seed']).toBeNull()
    expect(generation.results[0]!.seed).toBe(987)
    const stored = core.services().store.images.get(generation.id)!
    expect(stored.results[0]!.seed).toBe(987)
  })

  it('validates parameters against the model schema before any request, naming the allowed values', async () => {
    const run = generate('openai', 'dall-e-3', { size: '640x480' })
    const result = await run.done
    expect(result.ok).toBe(false)
    if (!result.ok) {
      expect(result.error.errorType).toBe('InvalidImageParams')
      expect(result.error.message).toContain('1024x1024, 1792x1024, 1024x1792')
    }
    expect(fake.requests).toHaveLength(0)
  })

  it('a failed task ends as failed with the reason, in the stream and the record', async () => {
    fake.enqueue('GET /poll/', { json: { status: 'Content Moderated' } })
    const run = generate('bfl', 'flux-dev', {})
    const generation = ok(await run.done)
    expect(generation.status).toBe('Error')
    expect(generation.error?.message).toContain('Content Moderated')
    const last = run.events.at(-1)
    expect(last).toMatchObject({ type: 'state', data: { state: 'failed', error: { message: expect.stringContaining('Content Moderated') } } })
  })

  it('a result URL that cannot be fetched fails with Failed to fetch image', async () => {
    fake.enqueue('GET /poll/', { json: { status: 'Ready', result: { sample: `${fake.origin}/files/gone.png` } } })
    fake.enqueue('GET /files/gone', { status: 404, text: 'gone' })
    const generation = ok(await generate('bfl', 'flux-dev', {}).done)
    expect(generation.error?.message).toMatch(/^Failed to fetch image/)
  })

  it('runs several tasks at once, queues beyond the limit, lists them as active, and cancels one', async () => {
    useService(2)
    let release = false
    fake.setDefault('GET /poll/', () => (release ? { json: { status: 'Ready', result: { sample: `${fake.origin}/files/x.png` } } } : { json: { status: 'Pending' } }))
    const runs = [generate('bfl', 'flux-dev', {}), generate('bfl', 'flux-pro', {}), generate('bfl', 'flux-dev', { seed: 3 })]
    await until(() => runs.filter((r) => states(r.events).some((s) => s.startsWith('polling'))).length === 2)
    const queued = runs.find((r) => !states(r.events).includes('running'))!
    expect(states(queued.events)).toEqual(['queued'])
    const active = ok(await client.call('tasks.active', { kind: 'image' }))
    expect(active).toHaveLength(3)
    expect(active.map((t) => t.kind === 'image' && t.meta.state.state).sort()).toEqual(['polling', 'polling', 'queued'])
    // Cancelling a running task frees its slot for the queued one.
    const victim = runs.find((r) => r !== queued)!
    const victimId = (victim.events[0] as Extract<ImageTaskEvent, { type: 'created' }>).data.id
    expect(ok(await client.call('images.cancel', { generationId: victimId }))).toBe(true)
    const cancelled = ok(await victim.done)
    expect(cancelled.status).toBe('Error')
    expect(cancelled.error?.message).toBe('Request was cancelled')
    expect(states(victim.events).at(-1)).toBe('cancelled')
    await until(() => states(queued.events).includes('running'))
    release = true
    for (const r of runs.filter((r) => r !== victim)) expect(ok(await r.done).status).toBe('Success')
    expect(ok(await client.call('tasks.active', {}))).toEqual([])
    useService(4)
  })

  it('stores data-URL reference images once, keeps a file ref in the record, and sends the bytes to the edit endpoint', async () => {
    fake.enqueue('POST /v1/images/edits', { json: { data: [{ b64_json: Buffer.from(pngBytes(8, 8, [1, 2, 3])).toString('base64') }] } })
    const ref = `data:image/png;base64,${Buffer.from(pngBytes(5, 5, [9, 9, 9])).toString('base64')}`
    const generation = ok(await generate('openai', 'gpt-image-1', { imageUrls: [ref] }).done)
    expect(generation.status).toBe('Success')
    const stored = generation.parameters['imageUrls'] as string[]
    expect(stored[0]).toMatch(/^sbfile:/)
    expect(fake.requestsTo('POST /v1/images/edits')).toHaveLength(1)
    expect(String(fake.requestsTo('POST /v1/images/edits')[0]!.body)).toContain('name="image"')
  })

  it('delete removes the record and its files, except files another generation still uses', async () => {
    const unique = { json: { data: [{ b64_json: Buffer.from(pngBytes(7, 7, [5, 6, 7])).toString('base64') }] } }
    fake.enqueue('POST /v1/images/generations', unique, unique)
    const first = ok(await generate('openai', 'gpt-image-1', { prompt: 'twice the same bytes' }).done)
    const second = ok(await generate('openai', 'gpt-image-1', { prompt: 'twice the same bytes' }).done)
    const fileId = first.results[0]!.fileId
    expect(second.results[0]!.fileId).toBe(fileId)
    const file = core.services().store.files.get(fileId)!

    expect(ok(await client.call('images.delete', { id: first.id }))).toEqual({ deleted: true, filesRemoved: 0 })
    expect(existsSync(join(dataDir, file.path))).toBe(true)
    expect(ok(await client.call('images.delete', { id: second.id }))).toEqual({ deleted: true, filesRemoved: 1 })
    expect(existsSync(join(dataDir, file.path))).toBe(false)
    const ids = ok(await client.call('data.images.list', {})).map((g) => g.id)
    expect(ids).not.toContain(first.id)
    expect(ids).not.toContain(second.id)
    expect(core.services().store.files.get(fileId)).toBeUndefined()
  })

  it('a queued task can be cancelled before it starts', async () => {
    useService(1)
    let release = false
    fake.setDefault('GET /poll/', () => (release ? { json: { status: 'Ready', result: { sample: `${fake.origin}/files/q.png` } } } : { json: { status: 'Pending' } }))
    const running = generate('bfl', 'flux-dev', {})
    const waiting = generate('bfl', 'flux-dev', { seed: 8 })
    await until(() => states(running.events).some((s) => s.startsWith('polling')) && states(waiting.events).includes('queued'))
    const id = (waiting.events[0] as Extract<ImageTaskEvent, { type: 'created' }>).data.id
    expect(ok(await client.call('images.cancel', { generationId: id }))).toBe(true)
    expect(ok(await waiting.done).error?.message).toBe('Request was cancelled')
    expect(states(waiting.events)).toEqual(['queued', 'cancelled'])
    release = true
    expect(ok(await running.done).status).toBe('Success')
    // Only the running task ever reached the provider.
    expect(fake.requestsTo('POST /v1/flux')).toHaveLength(1)
    useService(4)
  })

  it('Google: Imagen through predict, Gemini image output through a chat reply', async () => {
    fake.enqueue('POST /v1beta/models/imagen-4.0-generate-001:predict', { json: { predictions: [{ bytesBase64Encoded: B64, mimeType: 'image/png' }] } })
    const imagen = ok(await generate('google', 'imagen-4.0-generate-001', { aspectRatio: '16:9' }).done)
    expect(imagen).toMatchObject({ status: 'Success', cost: { total: 0.04 } })
    expect(fake.requestsTo('POST /v1beta/models/imagen-4.0-generate-001:predict')[0]!.body).toEqual({
      instances: [{ prompt: 'a quiet harbour' }],
      parameters: { sampleCount: 1, aspectRatio: '16:9' }
    })
    const sse = (chunk: unknown) => `data: ${JSON.stringify(chunk)}\r\n\r\n`
    fake.enqueue('POST /v1beta/models/gemini-2.5-flash-image:streamGenerateContent', {
      contentType: 'text/event-stream',
      text:
        sse({ candidates: [{ content: { role: 'model', parts: [{ text: 'Here it is' }] }, index: 0 }] }) +
        sse({ candidates: [{ content: { role: 'model', parts: [{ inlineData: { mimeType: 'image/png', data: B64 } }] }, finishReason: 'STOP', index: 0 }] })
    })
    const gemini = ok(await generate('google', 'gemini-2.5-flash-image:image', {}).done)
    expect(gemini.status).toBe('Success')
    expect(gemini.results[0]).toMatchObject({ width: 64, height: 48 })
    const sent = fake.requestsTo('POST /v1beta/models/gemini-2.5-flash-image:streamGenerateContent')[0]!.body as { contents: unknown }
    expect(JSON.stringify(sent.contents)).toContain('a quiet harbour')
  })

  it('offers each model its parameter schema', async () => {
    const known = ok(await client.call('images.modelParameters', { providerId: 'bfl', modelId: 'flux-pro' }))
    expect(known.known).toBe(true)
    expect(known.parameters.steps).toMatchObject({ min: 1, max: 50 })
    const unknown = ok(await client.call('images.modelParameters', { providerId: 'openai', modelId: 'dall-e-2' }))
    expect(unknown.parameters.size?.enum).toEqual(['256x256', '512x512', '1024x1024'])
  })
})
