import type { ElicitationField, ElicitationSchema, ElicitationValue } from './types'

/** The choices of an enum field (single or multiple select), with their labels. */
export function fieldOptions(field: ElicitationField): { value: string; label: string }[] | undefined {
  if (field.oneOf) return field.oneOf.map((o) => ({ value: o.const, label: o.title ?? o.const }))
  if (field.enum) return field.enum.map((value, i) => ({ value, label: field.enumNames?.[i] ?? value }))
  const items = field.items
  if (items?.anyOf) return items.anyOf.map((o) => ({ value: o.const, label: o.title ?? o.const }))
  if (items?.enum) return items.enum.map((value) => ({ value, label: value }))
  return undefined
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const DATE = /^\d{4}-\d{2}-\d{2}$/

/**
 * Checks an answer against the requested schema (what MCP allows in a form: flat strings,
 * numbers, integers, booleans and enums). Returns the problems per field; empty when valid.
 */
export function validateElicitation(schema: ElicitationSchema, content: Record<string, ElicitationValue | undefined>): Record<string, string> {
  const problems: Record<string, string> = {}
  const required = new Set(schema.required ?? [])
  for (const [name, field] of Object.entries(schema.properties)) {
    const value = content[name]
    const label = field.title ?? name
    if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0 && required.has(name))) {
      if (required.has(name)) problems[name] = `${label} is required.`
      continue
    }
    const options = fieldOptions(field)?.map((o) => o.value)
    switch (field.type) {
      case 'boolean':
        if (typeof value !== 'boolean') problems[name] = `${label} must be yes or no.`
        break
      case 'number':
      case 'integer':
        if (typeof value !== 'number' || !Number.isFinite(value)) problems[name] = `${label} must be a number.`
        else if (field.type === 'integer' && !Number.isInteger(value)) problems[name] = `${label} must be a whole number.`
        else if (field.minimum !== undefined && value < field.minimum) problems[name] = `${label} must be at least ${field.minimum}.`
        else if (field.maximum !== undefined && value > field.maximum) problems[name] = `${label} must be at most ${field.maximum}.`
        break
      case 'array':
        if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || (options && !options.includes(v)))) problems[name] = `${label}: choose from the list.`
        else if (field.minItems !== undefined && value.length < field.minItems) problems[name] = `${label}: choose at least ${field.minItems}.`
        else if (field.maxItems !== undefined && value.length > field.maxItems) problems[name] = `${label}: choose at most ${field.maxItems}.`
        break
      default:
        if (typeof value !== 'string') problems[name] = `${label} must be text.`
        else if (options && !options.includes(value)) problems[name] = `${label}: choose from the list.`
        else if (field.minLength !== undefined && value.length < field.minLength) problems[name] = `${label} must have at least ${field.minLength} characters.`
        else if (field.maxLength !== undefined && value.length > field.maxLength) problems[name] = `${label} must have at most ${field.maxLength} characters.`
        else if (field.format === 'email' && !EMAIL.test(value)) problems[name] = `${label} must be an email address.`
        else if (field.format === 'date' && !DATE.test(value)) problems[name] = `${label} must be a date (YYYY-MM-DD).`
        else if (field.format === 'uri' && !URL.canParse(value)) problems[name] = `${label} must be an address (https://…).`
    }
  }
  for (const name of Object.keys(content)) if (!(name in schema.properties)) problems[name] = `${name} was not asked for.`
  return problems
}

/** The form's starting values: each field's default, when it has one. */
export function elicitationDefaults(schema: ElicitationSchema): Record<string, ElicitationValue> {
  const out: Record<string, ElicitationValue> = {}
  for (const [name, field] of Object.entries(schema.properties)) if (field.default !== undefined) out[name] = field.default
  return out
}
