import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { z } from 'zod'
import curated from '../../../catalogue/recommended-models.json' with { type: 'json' }
import type { RecommendedList, RecommendedModel } from '../../shared/models-library/types'
import { libraryModelId } from '../engine/model-discovery'
import type { ModelShape } from '../gguf/gguf-header'
import { contextPlan, estimateMemory, type MemoryAvailable } from '../gguf/fit-estimate'

const positive = z.number().int().positive()
const schema = z
  .object({
    format: z.literal(1),
    note: z.string().optional(),
    models: z
      .array(
        z
          .object({
            id: z.string().regex(/^[a-z0-9.-]+$/),
            name: z.string().min(1),
            parameters: z.string().min(1),
            repo: z.string().regex(/^[\w.-]+\/[\w.-]+$/),
            file: z.string().regex(/^[\w.-]+\.gguf$/),
            quant: z.string().min(1),
            sizeBytes: positive,
            license: z.string().min(1),
            goodAt: z.string().min(1),
            shape: z
              .object({
                architecture: z.string().min(1),
                blockCount: positive,
                embeddingLength: positive,
                headCount: positive,
                headCountKv: positive,
                keyLength: positive,
                valueLength: positive,
                contextLength: positive,
                vocabSize: positive
              })
              .strict()
          })
          .strict()
      )
      .min(3)
      .max(5)
  })
  .strict()

export type CuratedModel = z.infer<typeof schema>['models'][number]

/** The curated list as the app ships it, checked once (a bad edit fails at the first use and in the tests, never silently). */
export const curatedModels = (): readonly CuratedModel[] => (parsed ??= schema.parse(curated).models)
let parsed: CuratedModel[] | undefined

/** Where the model library puts a Hugging Face file (`<dataDir>/models/hf/<owner>/<repo>/<file>`). */
export const hfFilePath = (modelsDir: string, repo: string, file: string): string => join(modelsDir, 'hf', ...repo.split('/'), ...file.split('/'))

/**
 * The curated small instruction models with this machine's fit for each, smallest first, and
 * whether each is downloaded already. The fit is computed from the shape the list ships, so it
 * needs no network.
 */
export async function recommendedModels(dataDir: string, memory: MemoryAvailable, models: readonly CuratedModel[] = curatedModels()): Promise<RecommendedList> {
  const modelsDir = join(dataDir, 'models')
  const out: RecommendedModel[] = []
  for (const m of [...models].sort((a, b) => a.sizeBytes - b.sizeBytes)) {
    const shape: ModelShape = m.shape
    const path = hfFilePath(modelsDir, m.repo, m.file)
    const onDisk = await stat(path).then((s) => s.isFile(), () => false)
    const { shape: _shape, ...facts } = m
    out.push({
      ...facts,
      ref: `hf:${m.repo}:${m.file}`,
      builtinId: libraryModelId(dataDir, path),
      fit: estimateMemory(shape, m.sizeBytes, contextPlan(shape, m.sizeBytes, memory).total, memory),
      ...(onDisk ? { path } : {})
    })
  }
  return { models: out, noneFits: out.every((m) => m.fit.verdict === 'doesNotFit'), memory }
}
