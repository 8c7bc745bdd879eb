/**
 * Checks a value against the JSON-schema keywords a reply schema uses (type, properties,
 * required, additionalProperties, items, enum, const, minimum/maximum, exclusive bounds,
 * min/maxLength, min/maxItems, anyOf/oneOf). The engine's grammar shapes the reply but does not
 * enforce everything (its integer accepts an exponent and ignores minimum/maximum), so what
 * comes back is checked before it is called valid. Returns the problems, empty when it matches.
 */
export function checkJsonSchema(value: unknown, schema: unknown, path = '$'): string[] {
  if (schema === false) return [`${path}: no value is allowed here`]
  if (schema === true || schema === undefined || schema === null || typeof schema !== 'object') return []
  const s = schema as Record<string, unknown>
  const problems: string[] = []
  if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) {
    const options = (s.anyOf ?? s.oneOf) as unknown[]
    const matches = options.filter((o) => checkJsonSchema(value, o, path).length === 0).length
    if (matches === 0) problems.push(`${path}: matches none of the allowed shapes`)
    else if (Array.isArray(s.oneOf) && matches > 1) problems.push(`${path}: matches more than one of the allowed shapes`)
  }
  if ('const' in s && JSON.stringify(s.const) !== JSON.stringify(value)) problems.push(`${path}: must be ${JSON.stringify(s.const)}`)
  if (Array.isArray(s.enum) && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) problems.push(`${path}: must be one of ${JSON.stringify(s.enum)}`)
  const types = s.type === undefined ? undefined : Array.isArray(s.type) ? (s.type as string[]) : [s.type as string]
  if (types && !types.some((t) => isType(value, t))) {
    problems.push(`${path}: must be ${types.join(' or ')}`)
    return problems
  }
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) problems.push(`${path}: must be ≥ ${s.minimum}`)
    if (typeof s.maximum === 'number' && value > s.maximum) problems.push(`${path}: must be ≤ ${s.maximum}`)
    if (typeof s.exclusiveMinimum === 'number' && value <= s.exclusiveMinimum) problems.push(`${path}: must be > ${s.exclusiveMinimum}`)
    if (typeof s.exclusiveMaximum === 'number' && value >= s.exclusiveMaximum) problems.push(`${path}: must be < ${s.exclusiveMaximum}`)
  }
  if (typeof value === 'string') {
    const length = [...value].length
    if (typeof s.minLength === 'number' && length < s.minLength) problems.push(`${path}: must have at least ${s.minLength} characters`)
    if (typeof s.maxLength === 'number' && length > s.maxLength) problems.push(`${path}: must have at most ${s.maxLength} characters`)
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === 'number' && value.length < s.minItems) problems.push(`${path}: must have at least ${s.minItems} items`)
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) problems.push(`${path}: must have at most ${s.maxItems} items`)
    if (s.items && typeof s.items === 'object') value.forEach((item, i) => problems.push(...checkJsonSchema(item, s.items, `${path}[${i}]`)))
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>
    const props = (s.properties ?? {}) as Record<string, unknown>
    for (const key of Array.isArray(s.required) ? (s.required as string[]) : []) if (!Object.hasOwn(obj, key)) problems.push(`${path}: missing "${key}"`)
    for (const [key, v] of Object.entries(obj)) {
      // Own keys only: a reply's `constructor` is no property the schema declared.
      if (Object.hasOwn(props, key)) problems.push(...checkJsonSchema(v, props[key], `${path}.${key}`))
      else if (s.additionalProperties === false) problems.push(`${path}: "${key}" is not allowed`)
      else if (s.additionalProperties && typeof s.additionalProperties === 'object') problems.push(...checkJsonSchema(v, s.additionalProperties, `${path}.${key}`))
    }
  }
  return problems
}

function isType(value: unknown, type: string): boolean {
  switch (type) {
    case 'integer': return typeof value === 'number' && Number.isInteger(value)
    case 'number': return typeof value === 'number' && Number.isFinite(value)
    case 'string': return typeof value === 'string'
    case 'boolean': return typeof value === 'boolean'
    case 'null': return value === null
    case 'array': return Array.isArray(value)
    case 'object': return typeof value === 'object' && value !== null && !Array.isArray(value)
    default: return true
  }
}
