import type { EnumParam, ImageModelParameters, ImageParamValues, RangeParam } from './types'

/** One parameter of an image model, described for a form or a CLI (typed, plain data). */
export type ImageParamSpec =
  | { name: 'prompt'; kind: 'text'; default: string }
  | { name: 'seed'; kind: 'seed'; default: number | null }
  | { name: 'imageUrl'; kind: 'image'; default: string | null; maxFileSize?: number }
  | { name: 'imageUrls'; kind: 'images'; default: string[]; maxCount?: number; maxFileSize?: number }
  | { name: string; kind: 'enum'; default: string; enum: string[] }
  | { name: string; kind: 'range'; default: number; min: number; max: number; step?: number; integer: boolean }
  | { name: string; kind: 'boolean'; default: boolean }

const INTEGER_RANGES = new Set(['width', 'height', 'steps'])
const ORDER = ['prompt', 'imageUrl', 'imageUrls', 'size', 'aspectRatio', 'resolution', 'width', 'height', 'steps', 'cfg', 'seed']

const isEnum = (v: unknown): v is EnumParam => !!v && typeof v === 'object' && Array.isArray((v as EnumParam).enum)
const isRange = (v: unknown): v is RangeParam =>
  !!v && typeof v === 'object' && typeof (v as RangeParam).min === 'number' && typeof (v as RangeParam).max === 'number'

/** The typed schema of one image model, from its catalogue `parameters`, in form order. */
export function imageParamSpecs(parameters: ImageModelParameters): ImageParamSpec[] {
  const specs: ImageParamSpec[] = []
  const names = Object.keys(parameters).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
  for (const name of names) {
    const p = parameters[name] as Record<string, unknown> | undefined
    if (!p || typeof p !== 'object') continue
    if (name === 'prompt') specs.push({ name, kind: 'text', default: typeof p['default'] === 'string' ? p['default'] : '' })
    else if (name === 'seed') specs.push({ name, kind: 'seed', default: typeof p['default'] === 'number' ? p['default'] : null })
    else if (name === 'imageUrl') {
      specs.push({ name, kind: 'image', default: typeof p['default'] === 'string' && p['default'] ? p['default'] : null, ...opt('maxFileSize', p) })
    } else if (name === 'imageUrls') {
      specs.push({ name, kind: 'images', default: Array.isArray(p['default']) ? (p['default'] as string[]) : [], ...opt('maxCount', p), ...opt('maxFileSize', p) })
    } else if (isEnum(p)) specs.push({ name, kind: 'enum', default: String(p.default), enum: p.enum.map(String) })
    else if (isRange(p)) {
      specs.push({ name, kind: 'range', default: p.default, min: p.min, max: p.max, ...(p.step ? { step: p.step } : {}), integer: INTEGER_RANGES.has(name) })
    } else if (typeof p['default'] === 'boolean') specs.push({ name, kind: 'boolean', default: p['default'] })
  }
  return specs
}

/** The values a request starts from: every parameter's default. */
export function defaultImageParams(parameters: ImageModelParameters): ImageParamValues {
  const values: ImageParamValues = {}
  for (const spec of imageParamSpecs(parameters)) values[spec.name] = Array.isArray(spec.default) ? [...spec.default] : spec.default
  return values
}

const rank = (name: string) => {
  const i = ORDER.indexOf(name)
  return i === -1 ? ORDER.length : i
}
const opt = (key: 'maxCount' | 'maxFileSize', p: Record<string, unknown>) => (typeof p[key] === 'number' ? { [key]: p[key] as number } : {})
