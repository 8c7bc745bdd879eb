import type { AppError } from '../errors/app-error'
import { filterAspectRatios, BFL_ASPECT_RATIO_BOUNDS } from './aspect-ratio'
import { PROVIDER_MAX_INPUT_IMAGES } from './families'
import { imageParamSpecs, type ImageParamSpec } from './param-specs'
import type { ImageModelParameters, ImageParamValues } from './types'

export interface ImageParamIssue {
  param: string
  message: string
  /** The allowed values (enum) or range, so a UI can show the choice. */
  allowed?: string[] | { min: number; max: number; step?: number }
}

export type ImageParamsResult = { ok: true; value: ImageParamValues } | { ok: false; error: AppError & { detail: { issues: ImageParamIssue[] } } }

export interface ValidateImageParamsOptions {
  /** Applies provider limits: the input-image cap and the aspect-ratio bounds where they exist. */
  providerId?: string
  /** Reject an empty prompt (true by default: no provider generates from nothing). */
  requirePrompt?: boolean
}

/**
 * Checks request values against an image model's parameters. Every problem is reported (not
 * just the first), each naming the parameter and what it accepts. On success the value holds
 * the defaults for anything not given, so it can be sent as it is.
 */
export function validateImageParams(
  parameters: ImageModelParameters,
  values: ImageParamValues,
  options: ValidateImageParamsOptions = {}
): ImageParamsResult {
  const specs = imageParamSpecs(parameters)
  const byName = new Map(specs.map((s) => [s.name, s]))
  const issues: ImageParamIssue[] = []
  const out: ImageParamValues = {}

  for (const name of Object.keys(values)) {
    if (values[name] !== undefined && !byName.has(name)) {
      issues.push({ param: name, message: `${name} is not a parameter of this model (it takes: ${specs.map((s) => s.name).join(', ')})` })
    }
  }
  for (const spec of specs) {
    const given = values[spec.name]
    const value = given === undefined ? spec.default : given
    const issue = checkOne(spec, value, options)
    if (issue) issues.push(issue)
    else out[spec.name] = value
  }
  if (options.requirePrompt !== false && byName.has('prompt') && !(typeof values.prompt === 'string' && values.prompt.trim())) {
    issues.push({ param: 'prompt', message: 'prompt is required' })
  }

  if (issues.length > 0) {
    return {
      ok: false,
      error: {
        errorType: 'InvalidImageParams',
        message: issues.map((i) => i.message).join('; '),
        // Every Invalid* type answers 401 (product.md §8).
        status: 401,
        ...(options.providerId ? { provider: options.providerId } : {}),
        detail: { issues }
      }
    }
  }
  return { ok: true, value: out }
}

function checkOne(spec: ImageParamSpec, value: unknown, options: ValidateImageParamsOptions): ImageParamIssue | undefined {
  const name = spec.name
  switch (spec.kind) {
    case 'text':
      return typeof value === 'string' ? undefined : { param: name, message: `${name} must be text` }
    case 'seed':
      return value === null || (typeof value === 'number' && Number.isInteger(value) && value >= 0)
        ? undefined
        : { param: name, message: `${name} must be a whole number of 0 or more, or empty for a random seed` }
    case 'image':
      return value === null || value === '' || typeof value === 'string' ? undefined : { param: name, message: `${name} must be an image URL` }
    case 'images': {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) return { param: name, message: `${name} must be a list of image URLs` }
      const providerCap = options.providerId ? PROVIDER_MAX_INPUT_IMAGES[options.providerId] : undefined
      const caps = [spec.maxCount, providerCap].filter((n): n is number => typeof n === 'number')
      const cap = caps.length ? Math.min(...caps) : undefined
      return cap !== undefined && value.length > cap
        ? { param: name, message: `${name} allows at most ${cap} image${cap === 1 ? '' : 's'} (got ${value.length})`, allowed: { min: 0, max: cap } }
        : undefined
    }
    case 'enum': {
      const allowed = name === 'aspectRatio' && options.providerId === 'bfl' ? filterAspectRatios(spec.enum, BFL_ASPECT_RATIO_BOUNDS) : spec.enum
      return typeof value === 'string' && allowed.includes(value)
        ? undefined
        : { param: name, message: `${name} must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`, allowed }
    }
    case 'range': {
      const range = { min: spec.min, max: spec.max, ...(spec.step ? { step: spec.step } : {}) }
      const describe = `between ${spec.min} and ${spec.max}${spec.step && spec.step !== 1 ? ` in steps of ${spec.step}` : ''}`
      if (typeof value !== 'number' || !Number.isFinite(value)) return { param: name, message: `${name} must be a number ${describe}`, allowed: range }
      if (value < spec.min || value > spec.max) return { param: name, message: `${name} must be ${describe} (got ${value})`, allowed: range }
      if (spec.integer && !Number.isInteger(value)) return { param: name, message: `${name} must be a whole number ${describe} (got ${value})`, allowed: range }
      if (spec.step && !onStep(value, spec.min, spec.step)) return { param: name, message: `${name} must be ${describe} (got ${value})`, allowed: range }
      return undefined
    }
    case 'boolean':
      return typeof value === 'boolean' ? undefined : { param: name, message: `${name} must be true or false` }
  }
}

const onStep = (value: number, min: number, step: number) => {
  const n = (value - min) / step
  return Math.abs(n - Math.round(n)) < 1e-9
}
