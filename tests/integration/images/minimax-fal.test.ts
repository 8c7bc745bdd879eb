import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createProviderRuntime } from '../../../src/core/runtime/registry'
import { FAST_POLLING, startFakeImages, type FakeImages } from '../../fixtures/fake-images/index'
import { failure, KEY } from './helpers'

let fake: FakeImages
beforeAll(async () => {
  fake = await startFakeImages()
})
afterAll(() => fake.close())
beforeEach(() => {
  fake.requests.length = 0
})

describe('MiniMax image', () => {
  const run = (params: Record<string, unknown> = {}) =>
    createProviderRuntime('minimax', { apiKey: KEY, baseURL: `${fake.origin}/v1` }).createImage!({ model: 'image-01', params: { prompt: 'a cat', ...params } })

  it('POSTs /image_generation with aspect_ratio, model, n, prompt, seed and returns the first URL', async () => {
    fake.enqueue('POST /v1/image_generation', { json: { id: 'x', data: { image_urls: ['https://cdn/1.jpeg'] }, base_resp: { status_code: 0, status_msg: 'success' } } })
    await expect(run({ aspectRatio: '16:9', seed: 3 })).resolves.toEqual({ imageUrl: 'https://cdn/1.jpeg' })
    const [req] = fake.requestsTo('POST /v1/image_generation')
    expect(req!.headers['authorization']).toBe(`Bearer ${KEY}`)
    expect(req!.body).toMatchObject({ aspect_ratio: '16:9', model: 'image-01', n: 1, prompt: 'a cat', seed: 3 })
  })

  it('a non-zero base_resp is a create failure with its code and message', async () => {
    fake.enqueue('POST /v1/image_generation', { json: { base_resp: { status_code: 1008, status_msg: 'insufficient balance' } } })
    expect(await failure(run())).toMatchObject({ errorType: 'ProviderBizError', message: 'Failed to create image task (1008): insufficient balance' })
  })

  it('an empty URL list is an invalid response; HTTP errors keep their status', async () => {
    fake.enqueue('POST /v1/image_generation', { json: { data: { image_urls: [] }, base_resp: { status_code: 0 } } })
    expect((await failure(run())).message).toBe('Invalid image response: missing or empty data array')
    fake.enqueue('POST /v1/image_generation', { status: 500, text: 'upstream down' })
    expect((await failure(run())).message).toBe('Failed to create image task (500): upstream down')
  })
})

describe('Fal queue (subscribe)', () => {
  const run = (model: string, params: Record<string, unknown> = {}, maxAttempts = 20) =>
    createProviderRuntime('fal', { apiKey: KEY, baseURL: fake.origin }).createImage!({ model, params: { prompt: 'a boat', ...params } }, { imagePolling: { ...FAST_POLLING, maxAttempts } })
  const submitted = (app: string, id = 'req-1') => ({
    json: { request_id: id, status_url: `${fake.origin}/${app}/requests/${id}/status`, response_url: `${fake.origin}/${app}/requests/${id}` }
  })

  it('submits to the queue, polls the status URL, then reads the result with width and height', async () => {
    fake.enqueue('POST /fal-ai/flux/schnell', submitted('fal-ai/flux'))
    fake.enqueue('GET /fal-ai/flux/requests/req-1/status', { json: { status: 'IN_QUEUE', queue_position: 2 } }, { json: { status: 'IN_PROGRESS' } }, { json: { status: 'COMPLETED' } })
    fake.enqueue('GET /fal-ai/flux/requests/req-1', { json: { images: [{ url: `${fake.origin}/files/f.png`, width: 1024, height: 768 }], seed: 9 } })
    const result = await run('fal-ai/flux/schnell', { width: 1024, height: 768, steps: 4, seed: 9 })
    expect(result).toEqual({ imageUrl: `${fake.origin}/files/f.png`, width: 1024, height: 768, seed: 9 })
    const [submit] = fake.requestsTo('POST /fal-ai/flux/schnell')
    expect(submit!.headers['authorization']).toBe(`Key ${KEY}`)
    expect(submit!.body).toEqual({ prompt: 'a boat', num_images: 1, seed: 9, image_size: { width: 1024, height: 768 }, num_inference_steps: 4 })
  })

  it('reference images go to the edit endpoint of models that have one', async () => {
    fake.enqueue('POST /fal-ai/nano-banana/edit', submitted('fal-ai/nano-banana', 'req-2'))
    fake.enqueue('GET /fal-ai/nano-banana/requests/req-2/status', { json: { status: 'COMPLETED' } })
    fake.enqueue('GET /fal-ai/nano-banana/requests/req-2', { json: { images: [{ url: 'https://x/e.png' }] } })
    await expect(run('fal-ai/nano-banana', { imageUrls: ['https://a/ref.png'] })).resolves.toEqual({ imageUrl: 'https://x/e.png' })
    expect((fake.requestsTo('POST /fal-ai/nano-banana/edit')[0]!.body as Record<string, unknown>)['image_urls']).toEqual(['https://a/ref.png'])
  })

  it('without status URLs the app id paths are used', async () => {
    fake.enqueue('POST /fal-ai/qwen-image', { json: { request_id: 'req-3' } })
    fake.enqueue('GET /fal-ai/qwen-image/requests/req-3/status', { json: { status: 'COMPLETED' } })
    fake.enqueue('GET /fal-ai/qwen-image/requests/req-3', { json: { images: [{ url: 'https://x/q.png' }] } })
    await expect(run('fal-ai/qwen-image', { cfg: 2.5 })).resolves.toEqual({ imageUrl: 'https://x/q.png' })
  })

  it('a completed request whose result is an error fails with that error', async () => {
    fake.enqueue('POST /fal-ai/flux/schnell', submitted('fal-ai/flux', 'req-4'))
    fake.enqueue('GET /fal-ai/flux/requests/req-4/status', { json: { status: 'COMPLETED' } })
    fake.enqueue('GET /fal-ai/flux/requests/req-4', { status: 422, json: { detail: [{ msg: 'image_size too large' }] } })
    expect((await failure(run('fal-ai/flux/schnell'))).message).toBe('Failed to query task status (422): image_size too large')
  })

  it('an empty image list, a submit failure, and a stuck queue each fail', async () => {
    fake.enqueue('POST /fal-ai/flux/schnell', submitted('fal-ai/flux', 'req-5'))
    fake.enqueue('GET /fal-ai/flux/requests/req-5/status', { json: { status: 'COMPLETED' } })
    fake.enqueue('GET /fal-ai/flux/requests/req-5', { json: { images: [] } })
    expect((await failure(run('fal-ai/flux/schnell'))).message).toBe('Task succeeded but no images generated')

    fake.enqueue('POST /fal-ai/flux/schnell', { status: 403, json: { detail: 'User is locked. Reason: Exhausted balance.' } })
    expect(await failure(run('fal-ai/flux/schnell'))).toMatchObject({ status: 403, message: 'Failed to create image task (403): User is locked. Reason: Exhausted balance.' })

    fake.enqueue('POST /fal-ai/flux/schnell', submitted('fal-ai/flux', 'req-6'))
    fake.setDefault('GET /fal-ai/flux/requests/req-6/status', { json: { status: 'IN_QUEUE' } })
    expect((await failure(run('fal-ai/flux/schnell', {}, 3))).message).toBe('Task timeout after 3 attempts')
  })
})
