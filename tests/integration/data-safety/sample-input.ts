import { z } from 'zod'

type Schema = {
  type?: string | string[]
  properties?: Record<string, Schema>
  required?: string[]
  items?: Schema
  prefixItems?: Schema[]
  minItems?: number
  enum?: unknown[]
  const?: unknown
  anyOf?: Schema[]
  oneOf?: Schema[]
  allOf?: Schema[]
  minimum?: number
  exclusiveMinimum?: number
  maximum?: number
  minLength?: number
  format?: string
  pattern?: string
  default?: unknown
}

/**
 * The smallest input a procedure's schema accepts, built from its JSON Schema: required fields
 * only, the first enum value, the lowest number allowed. Good enough to get past validation so
 * the handler itself runs; overrides cover the few schemas this cannot satisfy.
 */
export function sampleInput(schema: z.ZodType): unknown {
  const json = z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }) as Schema
  return sample(json)
}

function sample(s: Schema): unknown {
  if (s.const !== undefined) return s.const
  if (s.enum) return s.enum[0]
  const alternatives = s.anyOf ?? s.oneOf
  if (alternatives) return sample(alternatives.find((a) => a.type !== 'null') ?? alternatives[0]!)
  if (s.allOf) return Object.assign({}, ...s.allOf.map((part) => sample(part) as object))
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {}
      for (const key of s.required ?? []) out[key] = sample(s.properties?.[key] ?? {})
      return out
    }
    case 'array': {
      if (s.prefixItems) return s.prefixItems.map(sample)
      return Array.from({ length: s.minItems ?? 0 }, () => sample(s.items ?? {}))
    }
    case 'string':
      if (s.format === 'uri' || s.format === 'url') return 'http://127.0.0.1:9/'
      if (s.format === 'uuid') return '00000000-0000-4000-8000-000000000000'
      return 'x'.repeat(Math.max(1, s.minLength ?? 1))
    case 'integer':
      return Math.max(1, Math.ceil(s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1)))
    case 'number':
      return Math.max(s.minimum ?? 0, s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 0, Math.min(1, s.maximum ?? 1))
    case 'boolean':
      return false
    case 'null':
      return null
    default:
      return {}
  }
}
