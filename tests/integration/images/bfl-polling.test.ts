import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createProviderRuntime } from '../../../src/core/runtime/registry'
import { FAST_POLLING, startFakeImages, type FakeImages } from '../../fixtures/fake-images/index'
import { failure, KEY } from './helpers'

/** providers.md §4/§7/§8: the polling image provider (BFL), against a fake server. */
let fake: FakeImages
beforeAll(async () => {
  fake = await startFakeImages()
})
afterAll(() => fake.close())
beforeEach(() => {
  fake.requests.length = 0
  fake.setDefault('POST /v1/', (req) => ({ json: { id: 'job-1', polling_url: `${fake.origin}/v1/get_result?id=job-1&from=${req.path}` } }))
})

const POLL = 'GET /v1/get_result'
const run = (model = 'flux-pro-1.1', params: Record<string, unknown> = {}, maxAttempts = 20) =>
  createProviderRuntime('bfl', { apiKey: KEY, baseURL: fake.origin }).createImage!({ model, params: { prompt: 'a lighthouse', ...params } }, { imagePolling: { ...FAST_POLLING, maxAttempts } })
const poll = (status: string, extra: Record<string, unknown> = {}) => ({ json: { id: 'job-1', status, ...extra } })

describe('BFL polling image provider', () => {
  it('posts to the model path with the key header, then polls the returned URL until Ready', async () => {
    fake.enqueue(POLL, poll('Pending'), poll('Pending'), poll('Ready', { result: { sample: `${fake.origin}/files/out.png` } }))
    const result = await run('flux-pro-1.1', { seed: 7, width: 1024, height: 768 })
    expect(result.imageUrl).toBe(`${fake.origin}/files/out.png`)
    const [create] = fake.requestsTo('POST /v1/flux-pro-1.1')
    expect(create!.headers['x-key']).toBe(KEY)
    expect(create!.body).toEqual({ prompt: 'a lighthouse', seed: 7, width: 1024, height: 768 })
    const polls = fake.requestsTo(POLL)
    expect(polls).toHaveLength(3)
    expect(polls[0]!.headers['x-key']).toBe(KEY)
    expect(polls[0]!.query.get('id')).toBe('job-1')
  })

  it('maps Kontext reference images to input_image … input_image_4 and other params to their names', async () => {
    fake.enqueue(POLL, poll('Ready', { result: { sample: 'https://x/y.png' } }))
    const urls = ['https://a/1.png', 'https://a/2.png', 'https://a/3.png', 'https://a/4.png']
    await run('flux-kontext-pro', { imageUrls: urls, aspectRatio: '16:9' })
    expect(fake.requestsTo('POST /v1/flux-kontext-pro')[0]!.body).toEqual({
      prompt: 'a lighthouse',
      aspect_ratio: '16:9',
      input_image: urls[0],
      input_image_2: urls[1],
      input_image_3: urls[2],
      input_image_4: urls[3]
    })
    fake.enqueue(POLL, poll('Ready', { result: { sample: 'https://x/y.png' } }))
    await run('flux-dev', { imageUrl: 'https://a/ref.png', steps: 28, cfg: 3 })
    expect(fake.requestsTo('POST /v1/flux-dev')[0]!.body).toEqual({ prompt: 'a lighthouse', steps: 28, guidance: 3, image_prompt: 'https://a/ref.png' })
  })

  for (const status of ['Error', 'Content Moderated', 'Request Moderated', 'Task not found']) {
    it(`${status} fails the task at once`, async () => {
      fake.enqueue(POLL, poll('Pending'), poll(status))
      const e = await failure(run())
      expect(e.errorType).toBe('ProviderBizError')
      expect(e.message).toContain(status)
      expect(fake.requestsTo(POLL)).toHaveLength(2)
    })
  }

  it('Ready without a sample URL fails', async () => {
    fake.enqueue(POLL, poll('Ready', { result: {} }))
    expect((await failure(run())).message).toBe('Task succeeded but no images generated')
  })

  it('reports the seed the provider used', async () => {
    fake.enqueue(POLL, poll('Ready', { result: { sample: 'https://x/s.png', seed: 123456 } }))
    await expect(run()).resolves.toEqual({ imageUrl: 'https://x/s.png', seed: 123456 })
  })

  it('an unknown status keeps polling', async () => {
    fake.enqueue(POLL, poll('Queued'), poll('Processing'), poll('Ready', { result: { sample: 'https://x/q.png' } }))
    await expect(run()).resolves.toEqual({ imageUrl: 'https://x/q.png' })
  })

  it('an unsupported model is ModelNotFound, before any request', async () => {
    const e = await failure(run('flux-schnell'))
    expect(e).toMatchObject({ errorType: 'ModelNotFound' })
    expect(e.message).toContain('Unsupported BFL model')
    expect(fake.requests).toHaveLength(0)
  })

  it('allows 3 consecutive poll failures; the 4th fails with the query message', async () => {
    const down = { status: 503, json: { detail: 'busy' } }
    fake.enqueue(POLL, down, { destroy: true }, down, poll('Ready', { result: { sample: 'https://x/ok.png' } }))
    await expect(run()).resolves.toEqual({ imageUrl: 'https://x/ok.png' })
    fake.enqueue(POLL, down, down, down, down)
    expect((await failure(run())).message).toBe('Failed to query task status (503): busy')
  })

  it('a successful poll resets the failure count', async () => {
    const down = { status: 502, json: { detail: 'gateway' } }
    fake.enqueue(POLL, down, down, down, poll('Pending'), down, down, down, poll('Ready', { result: { sample: 'https://x/r.png' } }))
    await expect(run()).resolves.toEqual({ imageUrl: 'https://x/r.png' })
  })

  it('times out after N attempts', async () => {
    fake.setDefault(POLL, poll('Pending'))
    expect((await failure(run('flux-pro', {}, 6))).message).toBe('Task timeout after 6 attempts')
    fake.setDefault(POLL, poll('Ready', { result: { sample: 'https://x/d.png' } }))
  })

  it('create failures carry status and reason; 401 is a bad key', async () => {
    fake.enqueue('POST /v1/', { status: 422, json: { detail: [{ msg: 'width must be a multiple of 32' }] } })
    expect(await failure(run())).toMatchObject({ status: 422, message: 'Failed to create image task (422): width must be a multiple of 32' })
    fake.enqueue('POST /v1/', { status: 401, json: { detail: 'Not authenticated' } })
    expect((await failure(run())).errorType).toBe('InvalidProviderAPIKey')
  })

  it('needs an API key', async () => {
    expect(() => createProviderRuntime('bfl', {})).toThrow(/API key/)
  })
})
