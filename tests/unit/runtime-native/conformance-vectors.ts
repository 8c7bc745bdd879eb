import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The conformance vectors, copied into the repo (tests/fixtures/conformance/README.md names their source). */
export const conformanceDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../fixtures/conformance')

export interface StreamVectorCase {
  case: string
  fn: string
  input_chunks: unknown[] | null
  extra_args: unknown[]
  output_events?: Array<{ id: string; event: string; data: unknown }>
  output_raw?: unknown[]
  harness_error?: string
}

export interface UsageVectorCase {
  case: string
  fn: string
  args: unknown[]
  result: Record<string, unknown> | null
}

export const loadStreamVectors = (name: string): StreamVectorCase[] =>
  (JSON.parse(readFileSync(resolve(conformanceDir, 'stream-vectors', `${name}.json`), 'utf8')) as { cases: StreamVectorCase[] }).cases

export const loadUsageVectors = (name: string): UsageVectorCase[] =>
  (JSON.parse(readFileSync(resolve(conformanceDir, 'usage-pricing-vectors', `${name}.json`), 'utf8')) as { cases: UsageVectorCase[] }).cases
