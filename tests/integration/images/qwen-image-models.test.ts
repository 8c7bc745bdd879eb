import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadProviderModels } from '../../../src/shared/catalogue/loader'
import { defaultImageParams } from '../../../src/shared/image-params/param-specs'
import { qwenImageRoute } from '../../../src/shared/image-params/qwen-image'
import { createProviderRuntime } from '../../../src/core/runtime/registry'
import { AppErrorException } from '../../../src/shared/errors/app-error'
import { FAST_POLLING, startFakeImages, type FakeImages, type ImageRequestRecord } from '../../fixtures/fake-images/index'
import { KEY } from './helpers'

/**
 * Every image model the catalogue lists for Qwen, with its own default parameters, against a
 * fake DashScope that answers each endpoint in its wire format: the async image-synthesis and
 * image-generation tasks (create with the async header → tasks/{id}) and the synchronous
 * multimodal-generation call. None may end in "Unsupported model".
 */
let fake: FakeImages
const REFERENCE = 'data:image/png;base64,iVBORw0KGgo='

beforeAll(async () => {
  fake = await startFakeImages()
  const task = (id: string) => ({ json: { output: { task_id: id, task_status: 'PENDING' }, request_id: 'req-1' } })
  fake.setDefault('POST /api/v1/services/aigc/text2image/image-synthesis', task('t2i'))
  fake.setDefault('POST /api/v1/services/aigc/image2image/image-synthesis', task('i2i'))
  fake.setDefault('POST /api/v1/services/aigc/image-generation/generation', task('gen'))
  fake.setDefault('GET /api/v1/tasks/t2i', { json: { output: { task_id: 't2i', task_status: 'SUCCEEDED', results: [{ url: 'https://img.example/t2i.png' }] } } })
  fake.setDefault('GET /api/v1/tasks/i2i', { json: { output: { task_id: 'i2i', task_status: 'SUCCEEDED', results: [{ url: 'https://img.example/i2i.png' }] } } })
  fake.setDefault('GET /api/v1/tasks/gen', {
    json: { output: { task_id: 'gen', task_status: 'SUCCEEDED', choices: [{ finish_reason: 'stop', message: { role: 'assistant', content: [{ type: 'image', image: 'https://img.example/gen.png' }] } }] } }
  })
  fake.setDefault('POST /api/v1/services/aigc/multimodal-generation/generation', {
    json: {
      output: { choices: [{ finish_reason: 'stop', message: { role: 'assistant', content: [{ image: 'https://img.example/mm.png' }] } }], task_metric: { TOTAL: 1, SUCCEEDED: 1, FAILED: 0 } },
      usage: { width: 1328, height: 1328, image_count: 1 },
      request_id: 'req-2'
    }
  })
})
afterAll(() => fake.close())

const runtime = () => createProviderRuntime('qwen', { apiKey: KEY, baseURL: `${fake.origin}/compatible-mode/v1` })

/** The model's defaults as the images page sends them (empty values dropped), a prompt, and a reference where one is taken. */
function paramsFor(parameters: NonNullable<Awaited<ReturnType<typeof loadProviderModels>>[number]['parameters']>): Record<string, unknown> {
  const values: Record<string, unknown> = { ...defaultImageParams(parameters), prompt: 'a red fox in snow' }
  for (const [k, v] of Object.entries(values)) if (v === '' || v === null || (Array.isArray(v) && v.length === 0)) delete values[k]
  if (parameters.imageUrl) values['imageUrl'] = REFERENCE
  if (parameters.imageUrls) values['imageUrls'] = [REFERENCE]
  return values
}

const EXPECTED_URL = { text2image: 'https://img.example/t2i.png', image2image: 'https://img.example/i2i.png', 'image-generation': 'https://img.example/gen.png', multimodal: 'https://img.example/mm.png' }

describe('every Qwen image model in the catalogue can be called', async () => {
  const models = (await loadProviderModels('qwen')).filter((m) => m.type === 'image')

  it('the catalogue lists the 24 Qwen image models this covers', () => {
    expect(models.length).toBe(24)
  })

  for (const model of models) {
    it(`${model.id}${model.enabled ? ' (enabled by default)' : ''}`, async () => {
      const route = qwenImageRoute(model.id)
      expect(route, 'no endpoint serves it').toBeDefined()
      fake.requests.length = 0
      const params = paramsFor(model.parameters!)
      let result
      try {
        result = await runtime().createImage!({ model: model.id, params: params as never }, { imagePolling: FAST_POLLING })
      } catch (error) {
        throw new Error(error instanceof AppErrorException ? `${error.error.errorType}: ${error.error.message}` : String(error))
      }
      expect(result.imageUrl).toBe(EXPECTED_URL[route!])
      const create = fake.requests.find((r) => r.method === 'POST')!
      expect(create.headers['authorization']).toBe(`Bearer ${KEY}`)
      checkBody(route!, model.id, create, params)
    })
  }
})

function checkBody(route: string, modelId: string, create: ImageRequestRecord, params: Record<string, unknown>) {
  const body = create.body as { model: string; input: Record<string, unknown>; parameters: Record<string, unknown> }
  expect(body.model).toBe(modelId)
  const refs = [...(params['imageUrl'] ? [params['imageUrl']] : []), ...((params['imageUrls'] as string[] | undefined) ?? [])]
  if (route === 'multimodal') {
    expect(create.headers['x-dashscope-async']).toBeUndefined()
    expect(body.input).toEqual({ messages: [{ role: 'user', content: [...refs.map((image) => ({ image })), { text: 'a red fox in snow' }] }] })
  } else {
    expect(create.headers['x-dashscope-async']).toBe('enable')
    if (route === 'image-generation') expect(body.input).toEqual({ messages: [{ role: 'user', content: [...refs.map((image) => ({ image })), { text: 'a red fox in snow' }] }] })
    else if (route === 'image2image') expect(body.input).toEqual({ prompt: 'a red fox in snow', images: refs })
    else expect(body.input).toEqual({ prompt: 'a red fox in snow' })
  }
  // Sizes go over the wire as W*H, never WxH.
  if (body.parameters['size'] !== undefined) expect(body.parameters['size']).toMatch(/^\d+\*\d+$/)
  if (typeof params['width'] === 'number') expect(body.parameters['size']).toBe(`${params['width']}*${params['height']}`)
  if (typeof params['promptExtend'] === 'boolean') expect(body.parameters['prompt_extend']).toBe(params['promptExtend'])
  if (typeof params['aspectRatio'] === 'string') expect(body.parameters['aspect_ratio']).toBe(params['aspectRatio'])
}

it('an id no DashScope endpoint serves still answers "Unsupported model" before any request', async () => {
  fake.requests.length = 0
  const error = await runtime()
    .createImage!({ model: 'dall-e-3', params: { prompt: 'x' } }, { imagePolling: FAST_POLLING })
    .then(() => undefined, (e: AppErrorException) => e.error)
  expect(error).toMatchObject({ errorType: 'ModelNotFound', message: 'Unsupported model' })
  expect(fake.requests).toHaveLength(0)
})
