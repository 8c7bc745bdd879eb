import { describe, expect, it } from 'vitest'
import { CATALOGUE_PROVIDER_IDS } from '../../../catalogue/index'
import { loadProviderModels } from '../../../src/shared/catalogue/loader'
import { filterAspectRatios, parseAspectRatio } from '../../../src/shared/image-params/aspect-ratio'
import { imageSizesForModel, parseImageSize } from '../../../src/shared/image-params/families'
import { defaultImageParams, imageParamSpecs } from '../../../src/shared/image-params/param-specs'
import { checkQwenImageModel, isQwenImageModel } from '../../../src/shared/image-params/qwen-image'
import type { ImageModelParameters } from '../../../src/shared/image-params/types'
import { validateImageParams } from '../../../src/shared/image-params/validate'

/** Family sizes and bounds as providers.md §5 states them; the catalogue must carry them. */
const STEP_IMAGE_SIZES = ['256x256', '512x512', '768x768', '1024x1024', '1280x800', '800x1280']
const STEP_EDIT_IMAGE_SIZES = ['512x512', '768x768', '1024x1024']
const KOLORS_IMAGE_SIZES = ['1024x1024', '960x1280', '768x1024', '720x1440', '720x1280']
const QWEN_IMAGE_SIZES = ['1664*928', '1472*1140', '1328*1328', '1140*1472', '928*1664']
const FAMILY_BOUNDS = {
  bflDimension: { min: 256, max: 1440, step: 32 },
  fluxSchnellSteps: { min: 1, max: 12, default: 4 },
  stepSeriesSteps: { min: 1, max: 100, default: 50 },
  stepsDefault25: { min: 1, max: 50, default: 25 },
  cfgNarrow: { min: 1.5, max: 5 }
}

const bflFluxDev = async () => (await loadProviderModels('bfl')).find((m) => m.id === 'flux-dev')!.parameters!

describe('image parameters (product.md §3, §5; providers.md §5)', () => {
  it('builds a typed schema per image model from the catalogue, defaults included', async () => {
    const specs = imageParamSpecs(await bflFluxDev())
    expect(specs.map((s) => s.name)).toEqual(['prompt', 'imageUrl', 'width', 'height', 'steps', 'cfg', 'seed'])
    expect(specs.find((s) => s.name === 'width')).toEqual({ name: 'width', kind: 'range', default: 1024, min: 256, max: 1440, step: 32, integer: true })
    expect(defaultImageParams(await bflFluxDev())).toMatchObject({ prompt: '', seed: null, imageUrl: null, steps: 28, cfg: 3 })
  })

  it('every image model of the catalogue accepts its own defaults (with a prompt)', async () => {
    let checked = 0
    for (const id of CATALOGUE_PROVIDER_IDS) {
      for (const m of await loadProviderModels(id)) {
        if (m.type !== 'image') continue
        const r = validateImageParams(m.parameters!, { ...defaultImageParams(m.parameters!), prompt: 'a cat' }, { providerId: id })
        expect(r.ok ? '' : `${id}/${m.id}: ${r.error.message}`).toBe('')
        checked++
      }
    }
    expect(checked).toBe(102)
  })

  it('aspect ratios parse as width / height; anything else ("auto") is no ratio', () => {
    expect(parseAspectRatio('21:9')).toBeCloseTo(21 / 9)
    expect(parseAspectRatio('auto')).toBeUndefined()
  })

  it('one provider: ratios filtered to between 9/21 and 21/9 with tolerance 0.001', () => {
    expect(filterAspectRatios(['auto', '1:1', '21:9', '9:21', '1:4', '4:1', '8:1', '16:9'])).toEqual(['auto', '1:1', '21:9', '9:21', '16:9'])
    // 2.334 is within 0.001 of 21/9 = 2.3333…; 2.335 is not.
    expect(filterAspectRatios(['2.334:1', '2.335:1'])).toEqual(['2.334:1'])
  })

  it('sizes by model: gpt-image-1, dall-e-3, dall-e-2', () => {
    expect(imageSizesForModel('gpt-image-1')).toEqual(['auto', '1024x1024', '1536x1024', '1024x1536'])
    expect(imageSizesForModel('dall-e-3')).toEqual(['1024x1024', '1792x1024', '1024x1792'])
    expect(imageSizesForModel('dall-e-2')).toEqual(['256x256', '512x512', '1024x1024'])
    expect(imageSizesForModel('gpt-image-1.5')).toBeUndefined()
  })

  it('sizes parse from "x" and "*" forms', () => {
    expect(parseImageSize('1664*928')).toEqual({ width: 1664, height: 928 })
    expect(parseImageSize('1024x768')).toEqual({ width: 1024, height: 768 })
    expect(parseImageSize('auto')).toBeUndefined()
  })

  it('the catalogue carries the family bounds of providers.md §5', async () => {
    const params = async (provider: string, id: string) => (await loadProviderModels(provider)).find((m) => m.id === id)!.parameters!
    const bounds = (r: { min: number; max: number; step?: number; default: number }, withDefault = true) => ({
      min: r.min,
      max: r.max,
      ...(r.step !== undefined && r.step !== 1 ? { step: r.step } : {}),
      ...(withDefault ? { default: r.default } : {})
    })
    expect(bounds((await params('fal', 'fal-ai/flux/schnell')).steps!)).toEqual(FAMILY_BOUNDS.fluxSchnellSteps)
    expect(bounds((await params('bfl', 'flux-dev')).width!, false)).toEqual(FAMILY_BOUNDS.bflDimension)
    expect(bounds((await params('qwen', 'wanx-v1')).width!)).toEqual({ min: 512, max: 1440, default: 1024 })
    expect(bounds((await params('stepfun', 'step-1x-medium')).steps!)).toEqual(FAMILY_BOUNDS.stepSeriesSteps)
    expect((await params('stepfun', 'step-1x-medium')).size!.enum).toEqual([...STEP_IMAGE_SIZES])
    expect((await params('stepfun', 'step-1x-edit')).size!.enum).toEqual([...STEP_EDIT_IMAGE_SIZES])
    expect((await params('stepfun', 'step-1x-edit')).steps!.default).toBe(28)
    expect((await params('siliconcloud', 'Kwai-Kolors/Kolors')).size).toEqual({ default: '1024x1024', enum: [...KOLORS_IMAGE_SIZES] })
    expect(bounds((await params('wenxin', 'flux.1-schnell')).steps!)).toEqual(FAMILY_BOUNDS.stepsDefault25)
    expect((await params('bfl', 'flux-pro')).cfg).toMatchObject({ min: FAMILY_BOUNDS.cfgNarrow.min, max: FAMILY_BOUNDS.cfgNarrow.max, default: 2.5 })
    expect((await params('qwen', 'qwen-image')).size).toEqual({ default: '1328x1328', enum: QWEN_IMAGE_SIZES.map((size) => size.replace('*', 'x')) })
  })

  it('rejects values outside the range or off the step, naming the parameter and the range', async () => {
    const params = await bflFluxDev()
    const r = validateImageParams(params, { prompt: 'x', width: 2000, height: 700, steps: 0, cfg: 9 })
    expect(r.ok).toBe(false)
    if (r.ok) return
    const byParam = Object.fromEntries(r.error.detail.issues.map((i) => [i.param, i]))
    expect(byParam['width']!.message).toBe('width must be between 256 and 1440 in steps of 32 (got 2000)')
    expect(byParam['height']!.message).toBe('height must be between 256 and 1440 in steps of 32 (got 700)')
    expect(byParam['steps']!.message).toBe('steps must be between 1 and 50 (got 0)')
    expect(byParam['cfg']!.allowed).toEqual({ min: 1.5, max: 5, step: 0.1 })
    expect(r.error.errorType).toBe('InvalidImageParams')
  })

  it('rejects a size outside the enumeration, listing the allowed sizes', async () => {
    const dalle3 = (await loadProviderModels('azure')).find((m) => m.id === 'dall-e-3')!.parameters!
    const r = validateImageParams(dalle3, { prompt: 'x', size: '512x512' })
    expect(r.ok === false && r.error.message).toBe('size must be one of auto, 1024x1024, 1792x1024, 1024x1792 (got "512x512")')
  })

  it('at most 4 input images at the provider with that limit; a model cap also applies', () => {
    const params: ImageModelParameters = { prompt: { default: '' }, imageUrls: { default: [] } }
    const five = ['a', 'b', 'c', 'd', 'e']
    expect(validateImageParams(params, { prompt: 'x', imageUrls: five }).ok).toBe(true)
    const r = validateImageParams(params, { prompt: 'x', imageUrls: five }, { providerId: 'bfl' })
    expect(r.ok === false && r.error.message).toBe('imageUrls allows at most 4 images (got 5)')
    const one = validateImageParams({ ...params, imageUrls: { default: [], maxCount: 1 } }, { prompt: 'x', imageUrls: ['a', 'b'] })
    expect(one.ok === false && one.error.message).toBe('imageUrls allows at most 1 image (got 2)')
  })

  it('names unknown parameters and a missing prompt', () => {
    const r = validateImageParams({ prompt: { default: '' } }, { prompt: ' ', quality: 'hd' })
    expect(r.ok === false && r.error.detail.issues.map((i) => i.param)).toEqual(['quality', 'prompt'])
  })

  it("Qwen image ids must start with the service's prefixes, otherwise 'Unsupported model'", () => {
    for (const id of ['wan2.2-t2i-flash', 'wanx2.1-t2i-turbo', 'wanx2.0-t2i-turbo', 'wanx-v1', 'flux-schnell', 'stable-diffusion-3.5-large']) expect(isQwenImageModel(id)).toBe(true)
    expect(checkQwenImageModel('wanx-v1')).toBeUndefined()
    expect(checkQwenImageModel('dall-e-3')).toMatchObject({ errorType: 'ModelNotFound', message: 'Unsupported model', provider: 'qwen' })
  })
})
