import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createProviderRuntime } from '../../../src/core/runtime/registry'
import type { ImageProgress } from '../../../src/core/runtime/images/polling'
import { FAST_POLLING, startFakeImages, type FakeImages } from '../../fixtures/fake-images/index'
import { failure, KEY } from './helpers'

/** providers.md §4/§7/§8: the Qwen image service's async task, against a fake DashScope. */
let fake: FakeImages
beforeAll(async () => {
  fake = await startFakeImages()
})
afterAll(() => fake.close())
beforeEach(() => {
  fake.requests.length = 0
  fake.setDefault('POST /api/v1/services/aigc/text2image/image-synthesis', { json: { output: { task_id: 't-1', task_status: 'PENDING' }, request_id: 'r' } })
})

const CREATE = 'POST /api/v1/services/aigc/text2image/image-synthesis'
const POLL = 'GET /api/v1/tasks/t-1'
const runtime = () => createProviderRuntime('qwen', { apiKey: KEY, baseURL: `${fake.origin}/compatible-mode/v1` })
const run = (params: Record<string, unknown> = {}, model = 'wanx2.1-t2i-turbo', extra: { signal?: AbortSignal; progress?: ImageProgress[]; maxAttempts?: number } = {}) =>
  runtime().createImage!(
    { model, params: { prompt: 'a red fox', ...params } },
    { signal: extra.signal, imagePolling: { ...FAST_POLLING, ...(extra.maxAttempts ? { maxAttempts: extra.maxAttempts } : {}), onProgress: (p) => extra.progress?.push(p) } }
  )
const status = (task_status: string, extra: Record<string, unknown> = {}) => ({ json: { output: { task_id: 't-1', task_status, ...extra } } })

describe('Qwen image task', () => {
  it('creates the task with the async header and polls until SUCCEEDED, taking the first url', async () => {
    fake.enqueue(POLL, status('PENDING'), status('RUNNING'), status('SUCCEEDED', { results: [{ url: `${fake.origin}/files/a.png` }, { url: 'ignored' }] }))
    const progress: ImageProgress[] = []
    const result = await run({ seed: 42, width: 1024, height: 768 }, 'wanx2.1-t2i-turbo', { progress })
    expect(result.imageUrl).toBe(`${fake.origin}/files/a.png`)
    const [create] = fake.requestsTo(CREATE)
    expect(create!.headers['x-dashscope-async']).toBe('enable')
    expect(create!.headers['authorization']).toBe(`Bearer ${KEY}`)
    expect(create!.body).toEqual({ input: { prompt: 'a red fox' }, model: 'wanx2.1-t2i-turbo', parameters: { n: 1, seed: 42, size: '1024*768' } })
    expect(fake.requestsTo(POLL)).toHaveLength(3)
    expect(progress).toEqual([
      { phase: 'submitted', taskId: 't-1' },
      { phase: 'polling', attempt: 1, status: 'PENDING' },
      { phase: 'polling', attempt: 2, status: 'RUNNING' }
    ])
  })

  it('sends the default size 1024*1024 and no seed when none is given', async () => {
    fake.enqueue(POLL, status('SUCCEEDED', { results: [{ url: 'https://img/x.png' }] }))
    await run()
    expect((fake.requestsTo(CREATE)[0]!.body as { parameters: unknown }).parameters).toEqual({ n: 1, size: '1024*1024' })
  })

  it('SUCCEEDED without results fails', async () => {
    fake.enqueue(POLL, status('SUCCEEDED', { results: [] }))
    expect((await failure(run())).message).toBe('Task succeeded but no images generated')
  })

  it('FAILED gives the provider message, else the default one', async () => {
    fake.enqueue(POLL, status('FAILED', { error_message: 'prompt rejected' }))
    const a = await failure(run())
    expect(a).toMatchObject({ errorType: 'ProviderBizError', message: 'Qwen image generation failed: prompt rejected' })
    fake.enqueue(POLL, status('FAILED'))
    expect((await failure(run())).message).toBe('Qwen image generation failed: Image generation task failed')
  })

  it('rejects model ids no DashScope endpoint serves before any request', async () => {
    const e = await failure(run({}, 'made-up-image-model'))
    expect(e).toMatchObject({ errorType: 'ModelNotFound', message: 'Unsupported model' })
    expect(fake.requests).toHaveLength(0)
    for (const ok of ['wan2.2-t2i-flash', 'wanx2.0-t2i-turbo', 'wanx-v1', 'flux-schnell', 'stable-diffusion-xl']) {
      fake.enqueue(POLL, status('SUCCEEDED', { results: [{ url: 'https://img/y.png' }] }))
      await expect(run({}, ok)).resolves.toEqual({ imageUrl: 'https://img/y.png' })
    }
  })

  it('a failed create reports its status and reason', async () => {
    fake.enqueue(CREATE, { status: 400, json: { code: 'InvalidParameter', message: 'size is invalid' } })
    expect(await failure(run())).toMatchObject({ errorType: 'ProviderBizError', status: 400, message: 'Failed to create image task (400): size is invalid' })
    fake.enqueue(CREATE, { status: 401, json: { code: 'InvalidApiKey', message: 'Invalid API-key provided.' } })
    expect((await failure(run())).errorType).toBe('InvalidProviderAPIKey')
  })

  it('tolerates three failed polls in a row, and fails on the fourth with the query message', async () => {
    const bad = { status: 500, json: { message: 'internal' } }
    fake.enqueue(POLL, bad, bad, bad, status('SUCCEEDED', { results: [{ url: 'https://img/z.png' }] }))
    await expect(run()).resolves.toEqual({ imageUrl: 'https://img/z.png' })
    fake.enqueue(POLL, bad, bad, bad, bad)
    expect((await failure(run())).message).toBe('Failed to query task status (500): internal')
  })

  it('a network failure while polling counts as a failed poll', async () => {
    fake.enqueue(POLL, { destroy: true }, { destroy: true }, status('SUCCEEDED', { results: [{ url: 'https://img/n.png' }] }))
    await expect(run()).resolves.toEqual({ imageUrl: 'https://img/n.png' })
  })

  it('a task that never finishes times out after the allowed attempts', async () => {
    fake.setDefault(POLL, status('RUNNING'))
    expect((await failure(run({}, 'wanx-v1', { maxAttempts: 4 }))).message).toBe('Task timeout after 4 attempts')
    expect(fake.requestsTo(POLL)).toHaveLength(4)
  })

  it('cancelling while polling ends with Request was cancelled', async () => {
    fake.setDefault(POLL, status('RUNNING'))
    const controller = new AbortController()
    const progress: ImageProgress[] = []
    const pending = run({}, 'wanx-v1', { signal: controller.signal, progress, maxAttempts: 10_000 })
    while (progress.filter((p) => p.phase === 'polling').length < 2) await new Promise((r) => setTimeout(r, 2))
    controller.abort()
    expect((await failure(pending)).message).toBe('Request was cancelled')
  })
})
