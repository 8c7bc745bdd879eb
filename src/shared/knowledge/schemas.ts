import { z } from 'zod'

/** product.md §3/§7: the dataset record, the knowledge-base eval and the eval dataset record. */

const referenceFiles = z.union([z.string(), z.array(z.string())])

/** The fields of a dataset record, as a JSONL key or a CSV column. */
export const DATASET_FIELDS = ['question', 'ideal', 'referenceFiles'] as const

const fold = (name: string) => name.toLowerCase().replace(/[\s_-]+/g, '')
/** The field a misspelt key most likely meant (reference_files, Reference Files → referenceFiles). */
export const likelyField = (key: string): string | undefined => DATASET_FIELDS.find((f) => fold(f) === fold(key))

/** A dataset record: question required (non-empty text), ideal and referenceFiles optional. */
export const datasetRecordSchema = z.object({
  question: z.string().trim().min(1, 'question is required'),
  ideal: z.string().optional(),
  referenceFiles: referenceFiles.optional()
})
export type DatasetRecordInput = z.infer<typeof datasetRecordSchema>

/** A knowledge-base eval: knowledgeBaseId and name required, description optional. */
export const knowledgeEvalSchema = z.object({
  knowledgeBaseId: z.string().min(1, 'knowledgeBaseId is required'),
  name: z.string().trim().min(1, 'name is required'),
  description: z.string().optional()
})

/** An eval dataset record: datasetId is numeric. */
export const evalDatasetSchema = z.object({
  datasetId: z.number({ error: 'datasetId must be a number' }).int(),
  description: z.string().optional(),
  knowledgeBaseId: z.string().min(1),
  name: z.string().trim().min(1)
})

/** referenceFiles as a list (a single text is one file). */
export const referenceFileList = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : (Array.isArray(value) ? value : [value]).map((v) => v.trim()).filter(Boolean)

export interface RecordProblem {
  /** 1-based line (JSONL) or row (CSV, header not counted). */
  line: number
  message: string
}
