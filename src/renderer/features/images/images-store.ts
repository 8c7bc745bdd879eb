import { create } from 'zustand'
import type { PickerGroup } from '../../../shared/bridge/procedures/providers'
import type { ImageGeneration } from '../../../shared/data/image-generation'
import type { AppError, Result } from '../../../shared/errors/app-error'
import { defaultImageParams } from '../../../shared/image-params/param-specs'
import type { ImageModelParameters, ImageParamValues } from '../../../shared/image-params/types'
import { validateImageParams, type ImageParamIssue } from '../../../shared/image-params/validate'
import { fileRef, type ActiveImageTask, type ImageTaskEvent, type ImageTaskState } from '../../../shared/images/image-task'
import { bridge } from '../../stores/app-store'
import { followRunningTasks, followTask } from '../../bridge/follow-task'

export interface ModelChoice {
  providerId: string
  modelId: string
}

/** One task as the page shows it (live while it runs, kept after it ends in this session). */
export interface TaskView {
  generationId: string
  streamId?: string
  providerId: string
  modelId: string
  prompt: string
  state: ImageTaskState
  createdAt: number
}

interface ImagesState {
  picker: PickerGroup[]
  pickerLoaded: boolean
  current?: ModelChoice
  parameters?: ImageModelParameters
  values: ImageParamValues
  /** Shown under each field; the prompt's "required" only after a generate attempt. */
  issues: ImageParamIssue[]
  triedSubmit: boolean
  submitError?: AppError
  tasks: TaskView[]
  gallery: ImageGeneration[]
  /** Data URLs of stored files, loaded on demand through the bridge. */
  files: Record<string, string>
  /** How many images one "Generate" starts (each its own task). */
  count: number
}

/** The most images one click starts. */
export const MAX_IMAGE_COUNT = 4
/** A finished task stays listed this long (its "Done" is seen), then only the gallery shows it. */
export const DONE_TASK_LINGER_MS = 1500

export const useImages = create<ImagesState>()(() => ({
  picker: [],
  pickerLoaded: false,
  values: {},
  issues: [],
  triedSubmit: false,
  tasks: [],
  gallery: [],
  files: {},
  count: 1
}))

const ACTIVE = new Set<ImageTaskState['state']>(['queued', 'running', 'polling', 'saving'])
export const isActive = (task: TaskView) => ACTIVE.has(task.state.state)

const recheck = () => {
  const { parameters, values, current } = useImages.getState()
  if (!parameters) return useImages.setState({ issues: [] })
  const result = validateImageParams(parameters, values, { providerId: current?.providerId })
  useImages.setState({ issues: result.ok ? [] : result.error.detail.issues })
}

const upsertTask = (task: Partial<TaskView> & { generationId: string }) =>
  useImages.setState((s) => {
    const existing = s.tasks.find((t) => t.generationId === task.generationId)
    return { tasks: existing ? s.tasks.map((t) => (t.generationId === task.generationId ? { ...t, ...task } : t)) : [{ ...(task as TaskView) }, ...s.tasks] }
  })

/** Follows one task's stream: created → states → the final record lands in the gallery. */
function follow(start: (handlers: Parameters<ReturnType<typeof bridge>['attach']>[2]) => { streamId: Promise<string> }, seed?: Partial<TaskView>) {
  let generationId = seed?.generationId
  const handle = start({
    onEvents: (events: ImageTaskEvent[]) => {
      for (const event of events) {
        if (event.type === 'created') {
          generationId = event.data.id
          upsertTask({
            generationId,
            providerId: event.data.providerId,
            modelId: event.data.modelId,
            prompt: event.data.prompt,
            createdAt: event.data.createdAt,
            state: { state: 'queued' },
            ...(seed?.streamId ? { streamId: seed.streamId } : {})
          })
        } else {
          const { generationId: id, ...state } = event.data
          upsertTask({ generationId: id, state: state as ImageTaskState })
        }
      }
    },
    onEnd: (result: Result<ImageGeneration>) => {
      if (result.ok) {
        const generation = result.value
        useImages.setState((s) => ({ gallery: [generation, ...s.gallery.filter((g) => g.id !== generation.id)] }))
        if (generation.results[0]) void imageActions.loadFile(generation.results[0].fileId)
        // Done: the image is in the gallery; the task leaves the list by itself.
        if (generation.status === 'Success') setTimeout(() => imageActions.dismissTask(generation.id), DONE_TASK_LINGER_MS)
      } else if (!generationId) useImages.setState({ submitError: result.error })
      else upsertTask({ generationId, state: { state: 'failed', error: result.error } })
    },
    onRefused: (error: AppError) => useImages.setState({ submitError: error })
  })
  void handle.streamId.then((streamId) => generationId && upsertTask({ generationId, streamId }))
}

let attachedActive = false

/** The parameters sent, with a random seed replaced by the one the provider reports having used. */
export function withResultSeed(generation: ImageGeneration): Record<string, unknown> {
  const used = generation.results[0]?.seed
  const asked = generation.parameters['seed']
  return typeof used === 'number' && (asked === null || asked === undefined) ? { ...generation.parameters, seed: used } : generation.parameters
}

export const imageActions = {
  async init() {
    await Promise.all([imageActions.refreshPicker(), imageActions.refreshGallery()])
    // Tasks started before a reload keep running in the core: show them again (once per page load).
    if (!attachedActive) {
      attachedActive = true
      await followRunningTasks('image', (task) => imageActions.attach({ ...task.meta, streamId: task.id }))
    }
    const { current, picker } = useImages.getState()
    const first = picker.flatMap((g) => g.models.filter((m) => m.enabled).map((m) => ({ providerId: g.provider.id, modelId: m.id })))[0]
    if (!current && first) await imageActions.pickModel(first.providerId, first.modelId)
  },

  async refreshPicker() {
    const result = await bridge().call('providers.list', { type: 'image' })
    if (result.ok) useImages.setState({ picker: result.value.picker, pickerLoaded: true })
    else useImages.setState({ pickerLoaded: true })
  },

  async refreshGallery() {
    const result = await bridge().call('data.images.list', { limit: 200 })
    if (!result.ok) return
    useImages.setState({ gallery: result.value })
    for (const g of result.value) if (g.results[0]) void imageActions.loadFile(g.results[0].fileId)
  },

  attach(task: ActiveImageTask) {
    upsertTask({ ...task })
    follow((handlers) => followTask('image', task.streamId, handlers), { generationId: task.generationId, streamId: task.streamId })
  },

  /** Picks a model and starts from its defaults, keeping the prompt (and seed) already typed. */
  async pickModel(providerId: string, modelId: string, keep?: ImageParamValues) {
    useImages.setState({ current: { providerId, modelId }, submitError: undefined })
    const result = await bridge().call('images.modelParameters', { providerId, modelId })
    if (!result.ok) return useImages.setState({ parameters: undefined, submitError: result.error })
    const previous = useImages.getState().values
    const values = defaultImageParams(result.value.parameters)
    const carry = keep ?? { prompt: previous.prompt, seed: previous.seed }
    for (const [name, value] of Object.entries(carry)) if (name in values && value !== undefined) values[name] = value
    useImages.setState({ parameters: result.value.parameters, values, triedSubmit: false })
    recheck()
  },

  setValue(name: string, value: unknown) {
    useImages.setState((s) => ({ values: { ...s.values, [name]: value } }))
    recheck()
  },

  randomSeed() {
    imageActions.setValue('seed', Math.floor(Math.random() * 2 ** 31))
  },

  setCount(count: number) {
    useImages.setState({ count: Math.min(MAX_IMAGE_COUNT, Math.max(1, Math.round(count) || 1)) })
  },

  /** Starts `count` tasks with the current values; errors stay visible next to the button. */
  generate() {
    const { current, values, issues, count } = useImages.getState()
    useImages.setState({ triedSubmit: true, submitError: undefined })
    if (!current || issues.length > 0 || !(typeof values.prompt === 'string' && values.prompt.trim())) return false
    const params = { ...values, prompt: values.prompt } as ImageParamValues & { prompt: string }
    for (let i = 0; i < count; i++) {
      follow((handlers) => bridge().stream('images.generate', { providerId: current.providerId, modelId: current.modelId, params: params as never }, handlers))
    }
    return true
  },

  async cancel(generationId: string) {
    await bridge().call('images.cancel', { generationId })
  },

  async loadFile(fileId: string): Promise<string | undefined> {
    const cached = useImages.getState().files[fileId]
    if (cached) return cached
    const result = await bridge().call('images.file', { fileId })
    if (!result.ok) return undefined
    useImages.setState((s) => ({ files: { ...s.files, [fileId]: result.value.dataUrl } }))
    return result.value.dataUrl
  },

  /** Loads a generation's model and parameters back into the panel (with the seed the provider used). */
  async reuse(generation: ImageGeneration) {
    await imageActions.pickModel(generation.providerId, generation.modelId, { ...(withResultSeed(generation) as ImageParamValues), prompt: generation.prompt })
  },

  /** Adds a stored image to the reference images (as a file ref: the core resolves it). */
  useAsReference(fileId: string) {
    const { parameters, values } = useImages.getState()
    const ref = fileRef(fileId)
    if (parameters?.imageUrls) {
      const list = Array.isArray(values.imageUrls) ? values.imageUrls : []
      if (!list.includes(ref)) imageActions.setValue('imageUrls', [...list, ref])
      return true
    }
    if (parameters?.imageUrl) {
      imageActions.setValue('imageUrl', ref)
      return true
    }
    return false
  },

  async remove(id: string) {
    const result = await bridge().call('images.delete', { id })
    if (result.ok) useImages.setState((s) => ({ gallery: s.gallery.filter((g) => g.id !== id), tasks: s.tasks.filter((t) => t.generationId !== id) }))
    return result
  },

  dismissTask(generationId: string) {
    useImages.setState((s) => ({ tasks: s.tasks.filter((t) => t.generationId !== generationId) }))
  },

  /** "Dismiss all failed": clears the failed and cancelled tasks in one go. */
  dismissFailed() {
    useImages.setState((s) => ({ tasks: s.tasks.filter((t) => t.state.state !== 'failed' && t.state.state !== 'cancelled') }))
  }
}
