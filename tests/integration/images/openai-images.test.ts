import { generateKeyPairSync } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createProviderRuntime } from '../../../src/core/runtime/registry'
import { listProviderCards, loadProviderModels } from '../../../src/shared/catalogue/loader'
import { pngBytes, startFakeImages, type FakeImages } from '../../fixtures/fake-images/index'
import { failure, KEY } from './helpers'

/** OpenAI-style images (generate, edit) through the real openai SDK against a fake server. */
let fake: FakeImages
beforeAll(async () => {
  fake = await startFakeImages()
})
afterAll(() => fake.close())
beforeEach(() => {
  fake.requests.length = 0
})

const B64 = Buffer.from(pngBytes()).toString('base64')
const GEN = 'POST /v1/images/generations'
const EDIT = 'POST /v1/images/edits'
const image = (provider: string, model: string, params: Record<string, unknown>) =>
  createProviderRuntime(provider, { apiKey: KEY, baseURL: `${fake.origin}/v1` }).createImage!({ model, params: { prompt: 'a teapot', ...params } })

describe('OpenAI images', () => {
  it('generates with n 1, drops size auto, and returns base64 as a data URL', async () => {
    fake.enqueue(GEN, { json: { created: 1, data: [{ b64_json: B64 }] } })
    const result = await image('openai', 'gpt-image-1', { size: 'auto' })
    expect(result.imageUrl).toBe(`data:image/png;base64,${B64}`)
    const [req] = fake.requestsTo(GEN)
    expect(req!.headers['authorization']).toBe(`Bearer ${KEY}`)
    expect(req!.body).toEqual({ model: 'gpt-image-1', prompt: 'a teapot', n: 1 })
  })

  it('sends sizes the model takes and drops ones it does not', async () => {
    fake.setDefault(GEN, { json: { data: [{ url: 'https://cdn/1.png' }] } })
    await image('openai', 'dall-e-3', { size: '1792x1024' })
    await image('openai', 'dall-e-2', { size: '1792x1024' })
    const [d3, d2] = fake.requestsTo(GEN)
    expect((d3!.body as Record<string, unknown>)['size']).toBe('1792x1024')
    expect((d2!.body as Record<string, unknown>)['size']).toBeUndefined()
  })

  it('returns a URL result as it is (the caller fetches and stores it)', async () => {
    fake.enqueue(GEN, { json: { data: [{ url: 'https://cdn/2.png' }] } })
    await expect(image('openai', 'dall-e-3', {})).resolves.toEqual({ imageUrl: 'https://cdn/2.png' })
  })

  it('uses the edit endpoint with the input images (imageUrl and imageUrls → image) as uploaded files', async () => {
    fake.enqueue(EDIT, { json: { data: [{ b64_json: B64 }] } })
    const dataUrl = `data:image/png;base64,${B64}`
    await image('openai', 'gpt-image-1', { imageUrl: `${fake.origin}/files/ref.png`, imageUrls: [dataUrl], size: '1024x1024' })
    const [req] = fake.requestsTo(EDIT)
    const body = String(req!.body)
    expect(req!.headers['content-type']).toMatch(/^multipart\/form-data/)
    expect(body.match(/name="image(\[\])?"/g)).toHaveLength(2)
    expect(body).toContain('name="prompt"')
    expect(body).toContain('1024x1024')
    expect(fake.requestsTo(GEN)).toHaveLength(0)
  })

  it('an input image that cannot be fetched fails with Failed to fetch image', async () => {
    fake.enqueue('GET /files/missing', { status: 404, text: 'nope' })
    expect((await failure(image('openai', 'gpt-image-1', { imageUrl: `${fake.origin}/files/missing.png` }))).message).toMatch(/^Failed to fetch image/)
  })

  it('an empty data array is an invalid response', async () => {
    fake.enqueue(GEN, { json: { data: [] } })
    expect((await failure(image('openai', 'gpt-image-1', {}))).message).toBe('Invalid image response: missing or empty data array')
  })

  it('HTTP errors map to the catalogue (401 key, 400 with the provider reason)', async () => {
    fake.enqueue(GEN, { status: 401, json: { error: { message: 'Incorrect API key', type: 'invalid_request_error', code: 'invalid_api_key' } } })
    expect((await failure(image('openai', 'gpt-image-1', {}))).errorType).toBe('InvalidProviderAPIKey')
    fake.enqueue(GEN, { status: 400, json: { error: { message: 'Your request was rejected by the safety system', type: 'image_generation_user_error', code: 'moderation_blocked' } } })
    const e = await failure(image('openai', 'gpt-image-1', {}))
    expect(e.message).toContain('rejected by the safety system')
  })

  it('StepFun adds seed, steps and cfg_scale; a custom endpoint gets plain OpenAI images', async () => {
    fake.setDefault(GEN, { json: { data: [{ url: 'https://cdn/s.png' }] } })
    await image('stepfun', 'step-2x-large', { seed: 5, steps: 30, cfg: 7.5, size: '512x512' })
    expect(fake.requestsTo(GEN)[0]!.body).toEqual({ model: 'step-2x-large', prompt: 'a teapot', n: 1, size: '512x512', seed: 5, steps: 30, cfg_scale: 7.5 })
    await image('my-own-server', 'sdxl', {})
    expect(fake.requestsTo(GEN)).toHaveLength(2)
  })
})

describe('SiliconCloud images', () => {
  it('sends image_size, batch_size, seed, steps, guidance and reference images; reads `images`', async () => {
    fake.enqueue(GEN, { json: { images: [{ url: 'https://sf/1.png' }], timings: { inference: 1 }, seed: 11 } })
    const result = await image('siliconcloud', 'Qwen/Qwen-Image-Edit-2509', { seed: 11, size: '1024x1024', steps: 20, cfg: 4, imageUrls: ['https://a/1.png', 'https://a/2.png'] })
    expect(result).toEqual({ imageUrl: 'https://sf/1.png', seed: 11 })
    expect(fake.requestsTo(GEN)[0]!.body).toEqual({
      model: 'Qwen/Qwen-Image-Edit-2509',
      prompt: 'a teapot',
      batch_size: 1,
      image_size: '1024x1024',
      seed: 11,
      num_inference_steps: 20,
      guidance_scale: 4,
      image: 'https://a/1.png',
      image2: 'https://a/2.png'
    })
  })

  it('401 is a bad key, 403 the balance / verification message, empty list invalid', async () => {
    fake.enqueue(GEN, { status: 401, text: 'Invalid token' })
    expect((await failure(image('siliconcloud', 'Kwai-Kolors/Kolors', {}))).errorType).toBe('InvalidProviderAPIKey')
    fake.enqueue(GEN, { status: 403, json: { message: 'forbidden' } })
    const forbidden = await failure(image('siliconcloud', 'Kwai-Kolors/Kolors', {}))
    expect(forbidden.errorType).toBe('ProviderBizError')
    expect(forbidden.message).toContain('实名')
    fake.enqueue(GEN, { json: { images: [] } })
    expect((await failure(image('siliconcloud', 'Kwai-Kolors/Kolors', {}))).message).toBe('Invalid image response: missing or empty data array')
  })
})

describe('Azure OpenAI images', () => {
  it('sends the deployment path with the api-version and the api-key header', async () => {
    fake.enqueue('POST /openai/deployments/gpt-image-1/images/generations', { json: { data: [{ b64_json: B64 }] } })
    const runtime = createProviderRuntime('azure', { apiKey: KEY, baseURL: fake.origin })
    const result = await runtime.createImage!({ model: 'gpt-image-1', params: { prompt: 'a kettle', size: '1024x1536' } })
    expect(result.imageUrl).toBe(`data:image/png;base64,${B64}`)
    const [req] = fake.requestsTo('POST /openai/deployments/gpt-image-1/images/generations')
    expect(req!.query.get('api-version')).toBeTruthy()
    expect(req!.headers['api-key']).toBe(KEY)
    expect(req!.body).toMatchObject({ prompt: 'a kettle', size: '1024x1536', n: 1 })
  })

  it('a missing deployment is ModelNotFound naming it', async () => {
    fake.enqueue('POST /openai/deployments/dall-e-3/images/generations', { status: 404, json: { error: { code: 'DeploymentNotFound', message: 'The API deployment for this resource does not exist.' } } })
    const e = await failure(createProviderRuntime('azure', { apiKey: KEY, baseURL: fake.origin }).createImage!({ model: 'dall-e-3', params: { prompt: 'x' } }))
    expect(e.errorType).toBe('ModelNotFound')
    expect(e.message).toContain('dall-e-3')
  })
})

/** A syntactically valid service account (Vertex checks it before any call). */
const serviceAccount = () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 })
  return JSON.stringify({ type: 'service_account', project_id: 'p', client_email: 'sa@p.iam.gserviceaccount.com', private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() })
}

describe('catalogue providers with image models offer createImage', () => {
  // Every provider whose catalogue lists image models must be able to draw them.
  const IMAGE_PROVIDERS = ['openai', 'aihubmix', 'azure', 'bfl', 'fal', 'giteeai', 'google', 'hunyuan', 'minimax', 'qwen', 'sensenova', 'siliconcloud', 'stepfun', 'vertexai', 'volcengine', 'wenxin', 'xai', 'zhipu']
  it('the list above is every catalogue provider with image models', async () => {
    const withImages: string[] = []
    for (const card of listProviderCards()) if ((await loadProviderModels(card.id).catch(() => [])).some((m) => m.type === 'image')) withImages.push(card.id)
    expect(withImages.sort()).toEqual([...IMAGE_PROVIDERS].sort())
  })
  it.each(IMAGE_PROVIDERS)('%s', async (id) => {
    expect((await loadProviderModels(id)).some((m) => m.type === 'image')).toBe(true)
    const credentials = id === 'vertexai' ? { serviceAccountJson: serviceAccount(), location: 'us-central1' } : { apiKey: KEY, baseURL: `${fake.origin}/v1` }
    expect(typeof createProviderRuntime(id, credentials).createImage).toBe('function')
  })
})
