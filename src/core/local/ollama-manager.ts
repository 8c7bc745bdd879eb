import type { ModelResponse, ShowResponse } from 'ollama'
import { AppErrorException } from '../../shared/errors/app-error'
import type { InstalledModel, ModelDetails, RunningModel } from '../../shared/local/ollama-models'
import { contextLengthOf, createOllamaClient, modelInfoNumber } from '../runtime/providers/ollama/ollama-client'
import { toOllamaError } from '../runtime/providers/ollama/ollama-errors'

const iso = (value: unknown): string => (value instanceof Date ? value.toISOString() : typeof value === 'string' ? value : '')

/** Ollama's model management: what is installed, what is loaded, details, delete. */
export class OllamaManager {
  constructor(
    private readonly baseUrl: () => string,
    private readonly fetchImpl?: typeof fetch
  ) {}

  private client(baseUrl?: string) {
    return createOllamaClient(baseUrl ?? this.baseUrl(), this.fetchImpl)
  }

  private async run<T>(work: () => Promise<T>, model?: string): Promise<T> {
    try {
      return await work()
    } catch (error) {
      throw new AppErrorException(toOllamaError(error, model))
    }
  }

  async version(baseUrl?: string): Promise<string> {
    return this.run(async () => (await (await this.client(baseUrl)).version()).version)
  }

  async list(baseUrl?: string): Promise<InstalledModel[]> {
    const { models } = await this.run(async () => (await this.client(baseUrl)).list())
    return models
      .map((m: ModelResponse) => ({
        name: m.name,
        sizeBytes: m.size,
        digest: m.digest,
        family: m.details?.family || undefined,
        families: m.details?.families ?? undefined,
        parameterSize: m.details?.parameter_size || undefined,
        quantization: m.details?.quantization_level || undefined,
        format: m.details?.format || undefined,
        modifiedAt: iso(m.modified_at)
      }))
      .sort((a, b) => a.name.localeCompare(b.name))
  }

  async running(baseUrl?: string): Promise<RunningModel[]> {
    const { models } = await this.run(async () => (await this.client(baseUrl)).ps())
    return models.map((m: ModelResponse & { context_length?: number }) => ({
      name: m.name,
      sizeBytes: m.size,
      sizeVramBytes: m.size_vram ?? 0,
      expiresAt: iso(m.expires_at) || undefined,
      contextLength: m.context_length,
      parameterSize: m.details?.parameter_size || undefined,
      quantization: m.details?.quantization_level || undefined
    }))
  }

  async show(model: string, baseUrl?: string): Promise<ModelDetails> {
    const res: ShowResponse = await this.run(async () => (await this.client(baseUrl)).show({ model }), model)
    const info = (res.model_info ?? {}) as unknown as Record<string, unknown>
    const arch = info['general.architecture']
    return {
      name: model,
      family: res.details?.family || undefined,
      parameterSize: res.details?.parameter_size || undefined,
      quantization: res.details?.quantization_level || undefined,
      format: res.details?.format || undefined,
      architecture: typeof arch === 'string' ? arch : undefined,
      contextLength: contextLengthOf(res),
      embeddingLength: modelInfoNumber(info, 'embedding_length'),
      capabilities: res.capabilities ?? [],
      license: res.license || undefined,
      parameters: res.parameters || undefined,
      template: res.template || undefined,
      modifiedAt: iso(res.modified_at) || undefined
    }
  }

  /** The model's context window, or undefined when the server cannot tell (used for num_ctx). */
  async contextLength(model: string, baseUrl?: string): Promise<number | undefined> {
    try {
      return (await this.show(model, baseUrl)).contextLength
    } catch {
      // Documented contract: undefined when the server cannot tell; the chat then uses Ollama's own default.
      return undefined
    }
  }

  async remove(model: string, baseUrl?: string): Promise<void> {
    await this.run(async () => (await this.client(baseUrl)).delete({ model }), model)
  }
}
