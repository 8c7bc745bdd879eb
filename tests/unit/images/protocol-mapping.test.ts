import { describe, expect, it } from 'vitest'
import { bflBody } from '../../../src/core/runtime/images/bfl-polling'
import { falEndpoint, falInput } from '../../../src/core/runtime/images/fal-image'
import { inputImages, openAISize } from '../../../src/core/runtime/images/openai-images'
import { dashScopeApiBase, qwenSize } from '../../../src/core/runtime/images/qwen-image'

describe('image protocol mapping', () => {
  it('OpenAI sizes: auto dropped, sizes per model kept, others dropped; unknown families pass through', () => {
    expect(openAISize('gpt-image-1', 'auto')).toBeUndefined()
    expect(openAISize('gpt-image-1', '1536x1024')).toBe('1536x1024')
    expect(openAISize('dall-e-3', '1792x1024')).toBe('1792x1024')
    expect(openAISize('dall-e-2', '1792x1024')).toBeUndefined()
    expect(openAISize('dall-e-2', '256x256')).toBe('256x256')
    expect(openAISize('cogview-4', '1440x720')).toBe('1440x720')
  })

  it('imageUrl and imageUrls become one list of input images', () => {
    expect(inputImages({ prompt: 'x', imageUrl: 'a', imageUrls: ['b', ''] })).toEqual(['a', 'b'])
    expect(inputImages({ prompt: 'x', imageUrl: null, imageUrls: [] })).toEqual([])
  })

  it('Qwen: W*H from width/height or a WxH size, 1024*1024 by default; the native API next to compatible mode', () => {
    expect(qwenSize({ prompt: 'x', width: 1280, height: 720 })).toBe('1280*720')
    expect(qwenSize({ prompt: 'x', size: '1328x1328' })).toBe('1328*1328')
    expect(qwenSize({ prompt: 'x', size: '1664*928' })).toBe('1664*928')
    expect(qwenSize({ prompt: 'x' })).toBe('1024*1024')
    expect(dashScopeApiBase('https://dashscope.aliyuncs.com/compatible-mode/v1')).toBe('https://dashscope.aliyuncs.com/api/v1')
    expect(dashScopeApiBase('https://dashscope-intl.aliyuncs.com/api/v1/')).toBe('https://dashscope-intl.aliyuncs.com/api/v1')
    expect(dashScopeApiBase('https://proxy.example.com/qwen')).toBe('https://proxy.example.com/api/v1')
  })

  it('BFL: Kontext takes at most 4 input images; ultra takes aspect_ratio and one image_prompt', () => {
    const five = ['1', '2', '3', '4', '5'].map((n) => `https://a/${n}.png`)
    const kontext = bflBody({ model: 'flux-kontext-max', params: { prompt: 'p', imageUrls: five } })
    expect(Object.keys(kontext).filter((k) => k.startsWith('input_image'))).toEqual(['input_image', 'input_image_2', 'input_image_3', 'input_image_4'])
    expect(bflBody({ model: 'flux-pro-1.1-ultra', params: { prompt: 'p', aspectRatio: '21:9', imageUrl: 'https://a/r.png', seed: 0 } })).toEqual({
      prompt: 'p',
      seed: 0,
      aspect_ratio: '21:9',
      image_prompt: 'https://a/r.png'
    })
  })

  it('Fal: enum sizes pass as names, dimensions as an object; edit endpoints only with images', () => {
    expect(falInput({ prompt: 'p', size: 'landscape_4_3', cfg: 7.5, steps: 28 })).toEqual({ prompt: 'p', num_images: 1, image_size: 'landscape_4_3', guidance_scale: 7.5, num_inference_steps: 28 })
    expect(falEndpoint({ model: 'fal-ai/bytedance/seedream/v4', params: { prompt: 'p' } })).toBe('fal-ai/bytedance/seedream/v4/text-to-image')
    expect(falEndpoint({ model: 'fal-ai/bytedance/seedream/v4', params: { prompt: 'p', imageUrls: ['u'] } })).toBe('fal-ai/bytedance/seedream/v4/edit')
    expect(falEndpoint({ model: 'fal-ai/flux/schnell', params: { prompt: 'p', imageUrl: 'u' } })).toBe('fal-ai/flux/schnell')
  })
})
