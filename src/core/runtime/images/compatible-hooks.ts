import type OpenAI from 'openai'
import type { CallOptions, CreateImageRequest, CreateImageResult } from '../types'
import { createMinimaxImage } from './minimax-image'
import { createOpenAIImage } from './openai-images'
import { createQwenImage } from './qwen-image'
import { createSiliconCloudImage } from './siliconcloud-image'

/** What the OpenAI-compatible runtime hands an image hook: its SDK client and endpoint. */
export interface CompatibleImageContext {
  provider: string
  baseURL: string
  apiKey: string
  client: OpenAI
  fetch: typeof fetch
}

/** `createImage` of an OpenAI-compatible provider config (config.ts). */
export type CompatibleImageHook = (ctx: CompatibleImageContext, request: CreateImageRequest, options: CallOptions) => Promise<CreateImageResult>

/** Plain OpenAI images (generate / edit): OpenAI and every server that copies its API. */
export const openAIImagesHook: CompatibleImageHook = (ctx, request, options) =>
  createOpenAIImage({ provider: ctx.provider, client: ctx.client, fetch: ctx.fetch }, request, options)

/** OpenAI images plus the provider's own fields (seed, steps, cfg under its names). */
export const openAIImagesWith =
  (extraBody: (params: CreateImageRequest['params']) => Record<string, unknown>): CompatibleImageHook =>
  (ctx, request, options) =>
    createOpenAIImage({ provider: ctx.provider, client: ctx.client, fetch: ctx.fetch, extraBody }, request, options)

/** Seed, steps and cfg as most OpenAI-style image servers name them (StepFun, Gitee…). */
export const seedStepsCfg = (params: CreateImageRequest['params']): Record<string, unknown> => ({
  ...(typeof params.seed === 'number' ? { seed: params.seed } : {}),
  ...(params.steps ? { steps: params.steps } : {}),
  ...(params.cfg !== undefined ? { cfg_scale: params.cfg } : {})
})

/** Width and height as a 'WxH' size (Volcengine Seedream, Wenxin). */
export const sizeFromDimensions = (params: CreateImageRequest['params']): Record<string, unknown> => ({
  ...(params.width && params.height ? { size: `${params.width}x${params.height}` } : {}),
  ...(typeof params.seed === 'number' ? { seed: params.seed } : {})
})

const endpoint = (ctx: CompatibleImageContext) => ({ provider: ctx.provider, baseURL: ctx.baseURL, apiKey: ctx.apiKey, fetch: ctx.fetch })

export const siliconCloudImageHook: CompatibleImageHook = (ctx, request, options) => createSiliconCloudImage(endpoint(ctx), request, options)
export const minimaxImageHook: CompatibleImageHook = (ctx, request, options) => createMinimaxImage(endpoint(ctx), request, options)
export const qwenImageHook: CompatibleImageHook = (ctx, request, options) => createQwenImage(endpoint(ctx), request, options)
