import type { AppError } from '../../../shared/errors/app-error'
import type { CostBreakdown } from '../../../shared/data/cost'
import type {
  ImageGeneration,
  ImageGenerationInput,
  ImageGenerationPatch,
  ImageGenerationStatus,
  ImageResult
} from '../../../shared/data/image-generation'
import type { JsonObject } from '../../../shared/data/json'
import type { StoreDb } from '../database'
import { notFound } from '../errors'
import { newId } from '../ids'
import { fromJson, toJson } from '../json-column'
import type { ImageGenerationRow } from '../schema'

const fromRow = (row: ImageGenerationRow): ImageGeneration => ({
  id: row.id,
  prompt: row.prompt,
  parameters: fromJson<JsonObject>(row.parameters) ?? {},
  providerId: row.provider_id,
  modelId: row.model_id,
  status: row.status as ImageGenerationStatus,
  results: fromJson<ImageResult[]>(row.results) ?? [],
  cost: fromJson<CostBreakdown>(row.cost),
  error: fromJson<AppError>(row.error),
  createdAt: row.created_at,
  updatedAt: row.updated_at
})

export class ImageGenerationsRepository {
  constructor(private readonly db: StoreDb) {}

  create(input: ImageGenerationInput): ImageGeneration {
    const now = Date.now()
    const generation: ImageGeneration = {
      parameters: {},
      status: 'Pending',
      ...input,
      id: input.id ?? newId(),
      results: [],
      createdAt: now,
      updatedAt: now
    }
    this.db.run(
      this.db.q.insertInto('image_generations').values({
        id: generation.id,
        prompt: generation.prompt,
        parameters: JSON.stringify(generation.parameters),
        provider_id: generation.providerId,
        model_id: generation.modelId,
        status: generation.status,
        results: '[]',
        cost: null,
        error: null,
        created_at: now,
        updated_at: now
      })
    )
    return generation
  }

  get(id: string): ImageGeneration | undefined {
    const row = this.db.first(this.db.q.selectFrom('image_generations').selectAll().where('id', '=', id))
    return row && fromRow(row)
  }

  list(options: { limit?: number } = {}): ImageGeneration[] {
    const limit = Math.max(1, Math.min(options.limit ?? 100, 1000))
    return this.db.all(this.db.q.selectFrom('image_generations').selectAll().orderBy('created_at', 'desc').limit(limit)).map(fromRow)
  }

  update(id: string, patch: ImageGenerationPatch): ImageGeneration {
    return this.db.transaction(() => {
      const current = this.get(id)
      if (!current) throw notFound('Image generation', id)
      const next: ImageGeneration = { ...current, ...patch, updatedAt: Date.now() }
      this.db.run(
        this.db.q
          .updateTable('image_generations')
          .set({ status: next.status, results: JSON.stringify(next.results), cost: toJson(next.cost), error: toJson(next.error), updated_at: next.updatedAt })
          .where('id', '=', id)
      )
      return next
    })
  }

  delete(id: string): boolean {
    return this.db.run(this.db.q.deleteFrom('image_generations').where('id', '=', id)) > 0
  }

  /** Start-up repair: a task that was running when the app stopped will never finish. */
  repairUnfinished(): number {
    const error: AppError = { errorType: 'ProviderBizError', message: 'Switchboard closed before this image was finished. Generate it again.' }
    return this.db.run(
      this.db.q
        .updateTable('image_generations')
        .set({ status: 'Error', error: JSON.stringify(error), updated_at: Date.now() })
        .where('status', 'in', ['Pending', 'Processing'])
    )
  }
}
