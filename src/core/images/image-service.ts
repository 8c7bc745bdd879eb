import { createHash } from 'node:crypto'
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { dirname, resolve, sep } from 'node:path'
import { loadProviderModels } from '../../shared/catalogue/loader'
import type { CatalogueModel } from '../../shared/catalogue/types'
import type { CostBreakdown } from '../../shared/data/cost'
import type { ImageGeneration } from '../../shared/data/image-generation'
import type { JsonObject } from '../../shared/data/json'
import { toAppError } from '../../shared/errors/to-app-error'
import { AppErrorException, type AppError } from '../../shared/errors/app-error'
import { imageSizesForModel, parseImageSize, withFamilyParameters } from '../../shared/image-params/families'
import type { ImageModelParameters, ImageParamValues } from '../../shared/image-params/types'
import { validateImageParams } from '../../shared/image-params/validate'
import { IMAGE_EXTENSIONS, imageDimensions, sniffImageMime } from '../../shared/images/image-dimensions'
import {
  fileIdOfRef,
  fileRef,
  MAX_CONCURRENT_IMAGE_TASKS,
  type ImageFileData,
  type ImageTaskEvent,
  type ImageTaskState
} from '../../shared/images/image-task'
import { computeImageCost } from '../../shared/pricing/image-cost'
import type { Pricing } from '../../shared/pricing/types'
import { parseDataUrl } from '../../shared/utils/data-url'
import { imageUrlToBase64 } from '../../shared/utils/image-url-to-base64'
import type { ImagePollingOptions } from '../runtime/images/polling'
import { CANCELLED_MESSAGE, runtimeError } from '../runtime/runtime-error'
import type { TaskRegistry } from '../bridge/stream-hub'
import type { CallOptions, CreateImageRequest, CreateImageResult, ProviderRuntime } from '../runtime/types'
import type { ModelCaller } from '../caller/model-caller'
import type { Store } from '../store'
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../files/private-files'

export interface ImageServiceDeps {
  store: Pick<Store, 'images' | 'files'>
  /** Generated files go under `<dataDir>/images/`. */
  dataDir: string
  /** The one caller: each finished generation is priced (per image) and logged, like any model call. */
  caller: Pick<ModelCaller, 'call'>
  /** The hub's task registry: a running generation is an `image` task with its latest state. */
  tasks: TaskRegistry
  /** Fetches result URLs (tests, proxies). */
  fetch?: typeof fetch
  /** Polling cadence passed to task protocols (tests shorten it). */
  polling?: Omit<ImagePollingOptions, 'onProgress'>
  maxConcurrent?: number
  /** The model's parameters and pricing; defaults to the built-in catalogue. */
  modelInfo?(providerId: string, modelId: string): Promise<ImageModelInfo>
}

export interface ImageModelInfo {
  parameters: ImageModelParameters
  pricing?: Pricing
  /** False when the catalogue does not know the model and a minimal schema stands in. */
  known: boolean
  /** Gemini-style models draw images in a chat reply rather than through an image endpoint. */
  viaChat?: boolean
}

export interface GenerateInput {
  providerId: string
  modelId: string
  params: ImageParamValues & { prompt: string }
}

/** What a model the catalogue does not know may take: a prompt, a seed, and its family's sizes. */
function fallbackParameters(modelId: string): ImageModelParameters {
  const sizes = imageSizesForModel(modelId)
  return { prompt: { default: '' }, seed: { default: null }, ...(sizes ? { size: { default: sizes[0]!, enum: [...sizes] } } : {}) }
}

export async function catalogueImageModel(providerId: string, modelId: string): Promise<ImageModelInfo> {
  const models: CatalogueModel[] = await loadProviderModels(providerId).catch(() => [])
  const model = models.find((m) => m.id === modelId) ?? models.find((m) => m.id.toLowerCase() === modelId.toLowerCase())
  const parameters = (model as { parameters?: ImageModelParameters } | undefined)?.parameters
  if (!model || !parameters) return { parameters: withFamilyParameters(modelId, fallbackParameters(modelId)), known: false, viaChat: modelId.endsWith(':image') }
  return { parameters: withFamilyParameters(modelId, parameters), ...(model.pricing ? { pricing: model.pricing } : {}), known: true, viaChat: modelId.endsWith(':image') }
}

/** A counting semaphore whose waiters can give up (a cancelled queued task). */
class Slots {
  private free: number
  private waiters: Array<() => void> = []
  constructor(size: number) {
    this.free = size
  }
  async acquire(signal: AbortSignal): Promise<void> {
    if (this.free > 0) {
      this.free--
      return
    }
    await new Promise<void>((resolvePromise, reject) => {
      const grant = () => {
        signal.removeEventListener('abort', onAbort)
        resolvePromise()
      }
      const onAbort = () => {
        this.waiters = this.waiters.filter((w) => w !== grant)
        reject(new AppErrorException(runtimeError('ProviderBizError', CANCELLED_MESSAGE)))
      }
      this.waiters.push(grant)
      signal.addEventListener('abort', onAbort, { once: true })
    })
  }
  release(): void {
    const next = this.waiters.shift()
    if (next) next()
    else this.free++
  }
}

/** Events pushed from callbacks, pulled by the task's generator. */
class EventQueue<T> {
  private items: T[] = []
  private wake?: () => void
  push(item: T): void {
    this.items.push(item)
    this.wake?.()
  }
  drain(): T[] {
    const out = this.items
    this.items = []
    return out
  }
  /** Resolves when an item arrives or `other` settles, whichever is first. */
  async wait(other: Promise<unknown>): Promise<void> {
    if (this.items.length) return
    await Promise.race([new Promise<void>((r) => (this.wake = r)), other.then(() => undefined, () => undefined)])
    this.wake = undefined
  }
}


/**
 * Image generation owned by the core: each task is a stream in the hub (it survives the
 * page closing), runs at most `maxConcurrent` at once (the rest are visibly queued), can be
 * cancelled, and ends as files in the data folder plus a database record with the prompt,
 * parameters, provider, model, seed, size and cost.
 */
export class ImageService {
  private readonly slots: Slots

  constructor(private readonly deps: ImageServiceDeps) {
    this.slots = new Slots(deps.maxConcurrent ?? MAX_CONCURRENT_IMAGE_TASKS)
  }

  modelInfo(providerId: string, modelId: string): Promise<ImageModelInfo> {
    return this.deps.modelInfo ? this.deps.modelInfo(providerId, modelId) : catalogueImageModel(providerId, modelId)
  }

  cancel(generationId: string): boolean {
    const task = this.deps.tasks.find('image', (m) => m.generationId === generationId)
    return task ? this.deps.tasks.cancel(task.id) : false
  }

  /** Checks the values against the model's schema; throws InvalidImageParams naming what is allowed. */
  async validate(input: GenerateInput): Promise<{ info: ImageModelInfo; values: ImageParamValues }> {
    const info = await this.modelInfo(input.providerId, input.modelId)
    const result = validateImageParams(info.parameters, input.params, { providerId: input.providerId })
    if (!result.ok) throw new AppErrorException(result.error)
    return { info, values: result.value }
  }

  async *generate(input: GenerateInput, ctx: { signal: AbortSignal; streamId?: string }): AsyncGenerator<ImageTaskEvent, ImageGeneration> {
    const { info, values } = await this.validate(input)
    // Reference images given as data URLs are stored once and kept in the record as file refs.
    const stored = await this.storeReferences(values)
    const { images } = this.deps.store
    let generation = images.create({ prompt: input.params.prompt, providerId: input.providerId, modelId: input.modelId, parameters: stored as JsonObject })
    const id = generation.id
    const task = { generationId: id, providerId: input.providerId, modelId: input.modelId, prompt: generation.prompt, createdAt: generation.createdAt }
    // The task's latest state travels with it, so a reloaded page shows it before the replay.
    const state = (s: ImageTaskState): ImageTaskEvent => {
      if (ctx.streamId) this.deps.tasks.describe(ctx.streamId, 'image', { ...task, state: s })
      return { type: 'state', data: { ...s, generationId: id } }
    }
    yield { type: 'created', data: generation }
    yield state({ state: 'queued' })
    let holding = false
    try {
      await this.slots.acquire(ctx.signal)
      holding = true
      generation = images.update(id, { status: 'Processing' })
      yield state({ state: 'running' })

      const queue = new EventQueue<ImageTaskEvent>()
      // A failed or cancelled generation is billed nothing and not logged; a finished one is one usage line with its price.
      const work = this.deps.caller
        .call({
          kind: 'image',
          scene: 'Image Generation',
          target: { providerId: input.providerId, modelId: input.modelId },
          signal: ctx.signal,
          invoke: ({ runtime, options }) => this.run(input, info, stored, runtime, options, (s) => queue.push(state(s))),
          price: () => this.cost(info, stored)
        })
        .then((done) => done.result)
      let settled = false
      work.then(
        () => (settled = true),
        () => (settled = true)
      )
      while (!settled) {
        await queue.wait(work)
        for (const e of queue.drain()) yield e
      }
      for (const e of queue.drain()) yield e
      const saved = await work
      const cost = this.cost(info, stored)
      generation = images.update(id, { status: 'Success', results: [saved], ...(cost ? { cost } : {}) })
      yield state({ state: 'done' })
      return generation
    } catch (error) {
      const cancelledNow = ctx.signal.aborted
      const appError = cancelledNow ? runtimeError('ProviderBizError', CANCELLED_MESSAGE, input.providerId) : toAppError(error)
      generation = images.update(id, { status: 'Error', error: appError })
      yield state(cancelledNow ? { state: 'cancelled' } : { state: 'failed', error: appError })
      return generation
    } finally {
      if (holding) this.slots.release()
    }
  }

  /**
   * An image a chat reply produced (a base64_image event, e.g. Gemini image output): stored once
   * per content (sha256) under images/ like the images page's results, and recorded as a
   * finished generation so the gallery offers it, with the conversation it came from.
   */
  async saveChatImage(input: { base64: string; mimeType: string; prompt: string; providerId: string; modelId: string; conversationId: string; messageId: string }): Promise<{
    fileId: string
    mimeType: string
    width?: number
    height?: number
  }> {
    const bytes = new Uint8Array(Buffer.from(input.base64, 'base64'))
    const file = await this.saveBytes(bytes, input.mimeType, 'images')
    const mimeType = sniffImageMime(bytes) ?? input.mimeType
    const { images } = this.deps.store
    const generation = images.create({
      prompt: input.prompt,
      providerId: input.providerId,
      modelId: input.modelId,
      parameters: { source: 'chat', conversationId: input.conversationId, messageId: input.messageId }
    })
    images.update(generation.id, { status: 'Success', results: [{ fileId: file.id, width: file.width ?? 0, height: file.height ?? 0 }] })
    return { fileId: file.id, mimeType, ...(file.width ? { width: file.width } : {}), ...(file.height ? { height: file.height } : {}) }
  }

  /** Calls the provider and stores the image; reports polling and saving through `report`. */
  private async run(
    input: GenerateInput,
    info: ImageModelInfo,
    values: ImageParamValues,
    runtimeOf: () => Promise<ProviderRuntime>,
    callOptions: CallOptions,
    report: (s: ImageTaskState) => void
  ): Promise<{ fileId: string; width: number; height: number; seed?: number }> {
    const signal = callOptions.signal ?? new AbortController().signal
    const runtime = await runtimeOf()
    const params = await this.resolveReferences(values)
    const request: CreateImageRequest = { model: input.modelId, params: params as CreateImageRequest['params'] }
    const options = {
      signal,
      ...(this.deps.fetch ? { fetch: this.deps.fetch } : {}),
      imagePolling: {
        ...this.deps.polling,
        onProgress: (p: Parameters<NonNullable<ImagePollingOptions['onProgress']>>[0]) => {
          if (p.phase === 'polling') report({ state: 'polling', attempt: p.attempt, ...(p.status ? { status: p.status } : {}) })
        }
      }
    }
    let result: CreateImageResult
    if (info.viaChat && runtime.chat) result = await this.viaChat(runtime, request, signal)
    else if (runtime.createImage) result = await runtime.createImage(request, options)
    else throw new AppErrorException(runtimeError('ModelNotFound', `${input.providerId} does not generate images`, input.providerId))
    report({ state: 'saving' })
    const file = await this.saveImage(result.imageUrl, signal)
    const fromParams = sizeOf(values)
    const width = result.width ?? file.width ?? fromParams?.width ?? 0
    const height = result.height ?? file.height ?? fromParams?.height ?? 0
    return { fileId: file.id, width, height, ...(typeof result.seed === 'number' ? { seed: result.seed } : {}) }
  }

  /** Gemini image output: a chat reply whose base64_image event is the picture. */
  private async viaChat(runtime: ProviderRuntime, request: CreateImageRequest, signal: AbortSignal): Promise<CreateImageResult> {
    const refs = [...(request.params.imageUrl ? [request.params.imageUrl] : []), ...(request.params.imageUrls ?? [])]
    const events = runtime.chat!(
      {
        model: request.model.replace(/:image$/, ''),
        messages: [{ role: 'user', content: [{ type: 'text', text: request.params.prompt }, ...refs.map((url) => ({ type: 'image_url' as const, image_url: { url } }))] }]
      },
      { signal }
    )
    let image: string | undefined
    for await (const event of events) {
      if (event.type === 'base64_image') image = `data:${event.data.mimeType};base64,${event.data.image}`
      if (event.type === 'error') throw new AppErrorException(event.data as AppError)
    }
    if (!image) throw new AppErrorException(runtimeError('ProviderBizError', 'Invalid image response: missing or empty data array', runtime.id))
    return { imageUrl: image }
  }

  private fetchFn(): typeof fetch {
    return this.deps.fetch ?? globalThis.fetch
  }

  /** Fetches (or decodes) the result and stores it once per content (sha256), under images/. */
  private async saveImage(url: string, signal: AbortSignal): Promise<{ id: string; width?: number; height?: number }> {
    const { base64, mimeType } = await imageUrlToBase64(url, this.fetchFn(), signal)
    return this.saveBytes(new Uint8Array(Buffer.from(base64, 'base64')), mimeType, 'images')
  }

  private async saveBytes(bytes: Uint8Array, declaredMime: string, folder: string): Promise<{ id: string; width?: number; height?: number }> {
    if (bytes.length === 0) throw new AppErrorException(runtimeError('ProviderBizError', 'Failed to fetch image: the image is empty'))
    const mimeType = sniffImageMime(bytes) ?? declaredMime
    const dims = imageDimensions(bytes)
    const sha256 = createHash('sha256').update(bytes).digest('hex')
    const { files } = this.deps.store
    const existing = files.findBySha256(sha256)
    // A stat failure means the earlier copy is gone: the file is written again below.
    if (existing && (await stat(this.absolute(existing.path)).catch(() => undefined))) return { id: existing.id, ...dims }
    const name = `${sha256.slice(0, 16)}.${IMAGE_EXTENSIONS[mimeType] ?? 'bin'}`
    const path = `${folder}/${sha256.slice(0, 2)}/${name}`
    const absolute = this.absolute(path)
    await mkdir(dirname(absolute), { recursive: true, mode: PRIVATE_DIR_MODE })
    await writeFile(absolute, bytes, { mode: PRIVATE_FILE_MODE })
    const record = files.add({ path, name, mimeType, size: bytes.length, sha256 })
    return { id: record.id, ...dims }
  }

  private absolute(path: string): string {
    const root = resolve(this.deps.dataDir)
    const full = resolve(root, path)
    if (!full.startsWith(root + sep)) throw new AppErrorException({ errorType: 'ProviderBizError', message: 'A stored file lies outside the data folder.' })
    return full
  }

  private async storeReferences(values: ImageParamValues): Promise<ImageParamValues> {
    const store = async (url: string) => {
      const parsed = parseDataUrl(url)
      if (parsed.type !== 'base64') return url
      const file = await this.saveBytes(new Uint8Array(Buffer.from(parsed.base64, 'base64')), parsed.mimeType, 'references')
      return fileRef(file.id)
    }
    const out = { ...values }
    if (typeof out.imageUrl === 'string' && out.imageUrl) out.imageUrl = await store(out.imageUrl)
    if (Array.isArray(out.imageUrls)) out.imageUrls = await Promise.all(out.imageUrls.map(store))
    return out
  }

  private async resolveReferences(values: ImageParamValues): Promise<ImageParamValues> {
    const resolveOne = async (value: string) => {
      const fileId = fileIdOfRef(value)
      return fileId ? (await this.file(fileId)).dataUrl : value
    }
    const out = { ...values }
    if (typeof out.imageUrl === 'string' && out.imageUrl) out.imageUrl = await resolveOne(out.imageUrl)
    if (Array.isArray(out.imageUrls)) out.imageUrls = await Promise.all(out.imageUrls.map(resolveOne))
    // The runtime takes null/undefined for "no value"; empty strings and lists are no value too.
    if (!out.imageUrl) delete out.imageUrl
    if (Array.isArray(out.imageUrls) && out.imageUrls.length === 0) delete out.imageUrls
    return out
  }

  /** Images are priced per image (or megapixel, or by quality and size), not by tokens. */
  private cost(info: ImageModelInfo, values: ImageParamValues): CostBreakdown | undefined {
    const result = computeImageCost(info.pricing, values as Record<string, unknown>, 1)
    if (!result.ok) {
      // Token-priced image models (gpt-image) carry the catalogue's approximate price per image.
      const approximate = (info.pricing as { approximatePricePerImage?: unknown } | undefined)?.approximatePricePerImage
      if (typeof approximate !== 'number') return undefined
      const currency = info.pricing?.currency === 'CNY' ? 'CNY' : 'USD'
      return { currency, total: approximate, items: [{ name: 'imageGeneration (approximate)', units: 1, unit: 'image', rate: approximate, cost: approximate }] }
    }
    return { currency: result.value.currency, total: result.value.totalAmount, items: [{ name: 'imageGeneration', units: 1, unit: 'image', rate: result.value.pricePerImage, cost: result.value.totalAmount }] }
  }

  async file(fileId: string): Promise<ImageFileData> {
    const record = this.deps.store.files.get(fileId)
    if (!record) throw new AppErrorException({ errorType: 'NotFound', status: 404, message: `File ${fileId} was not found.` })
    const bytes = await readFile(this.absolute(record.path)).catch(() => {
      throw new AppErrorException({ errorType: 'NotFound', status: 404, message: `The file of ${record.name} is missing from the data folder.` })
    })
    return { fileId, name: record.name, mimeType: record.mimeType, size: record.size, dataUrl: `data:${record.mimeType};base64,${bytes.toString('base64')}` }
  }

  /** Deletes the record, and each of its files that no other generation uses. */
  async delete(id: string): Promise<{ deleted: boolean; filesRemoved: number }> {
    const { images, files } = this.deps.store
    const generation = images.get(id)
    if (!generation) return { deleted: false, filesRemoved: 0 }
    this.cancel(id)
    images.delete(id)
    const stillUsed = new Set(images.list({ limit: 1000 }).flatMap((g) => [...g.results.map((r) => r.fileId), ...refsOf(g.parameters)]))
    let filesRemoved = 0
    for (const fileId of [...generation.results.map((r) => r.fileId), ...refsOf(generation.parameters)]) {
      if (stillUsed.has(fileId)) continue
      const record = files.get(fileId)
      if (!record) continue
      files.delete(fileId)
      await rm(this.absolute(record.path), { force: true })
      filesRemoved++
    }
    return { deleted: true, filesRemoved }
  }
}

const refsOf = (parameters: JsonObject): string[] => {
  const values = [parameters['imageUrl'], ...(Array.isArray(parameters['imageUrls']) ? parameters['imageUrls'] : [])]
  return values.flatMap((v) => (typeof v === 'string' && fileIdOfRef(v) ? [fileIdOfRef(v)!] : []))
}

const sizeOf = (values: ImageParamValues): { width: number; height: number } | undefined => {
  if (typeof values.width === 'number' && typeof values.height === 'number') return { width: values.width, height: values.height }
  return typeof values.size === 'string' ? parseImageSize(values.size) : undefined
}
