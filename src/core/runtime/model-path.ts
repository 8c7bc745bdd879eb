import { AppErrorException } from '../../shared/errors/app-error'
import { runtimeError } from './runtime-error'

/**
 * What may not be in a model id that goes into a URL: anything that would make it more than a
 * value there (a query, a fragment, an escape the server decodes into another path, a backslash
 * some servers read as `/`, a control character that splits a header line).
 */
// eslint-disable-next-line no-control-regex -- control characters are what this refuses
const NOT_IN_A_MODEL_ID = /[?#%\\\u0000-\u001f\u007f]/

/** Why `model` cannot stand in a URL as a value, or undefined when it can. */
export function modelIdProblem(model: string): string | undefined {
  if (!model) return 'it is empty'
  const bad = NOT_IN_A_MODEL_ID.exec(model)
  if (bad) return `it holds ${JSON.stringify(bad[0])}`
  for (const part of model.split('/')) {
    if (part === '') return 'it has an empty part (a leading, trailing or double "/")'
    if (part === '.' || part === '..') return `it has a "${part}" part`
  }
  return undefined
}

/**
 * Refuses a model id that would walk the provider's URL. The id comes from whoever calls (a
 * local API client, a typed model), the URL carries the owner's key: outside the model's own
 * path the key would reach any endpoint of the provider, or another host.
 */
export function assertModelIdIsValue(model: string, provider: string): void {
  const problem = modelIdProblem(model)
  if (!problem) return
  throw new AppErrorException(
    runtimeError('ValidationError', `The model id ${JSON.stringify(model)} cannot be sent to ${provider}: ${problem}. A model id is a name, never a path; check it against the provider's model list.`, provider)
  )
}

/**
 * A model id as the path it is under the provider's prefix: each `/`-separated part encoded as one
 * segment (Workers AI and Fal ids hold slashes: `@cf/meta/llama-3-8b-instruct`), after the checks
 * of `assertModelIdIsValue`.
 */
export function modelPath(model: string, provider: string): string {
  assertModelIdIsValue(model, provider)
  return model.split('/').map(segment).join('/')
}

/** One path segment; `@` and `:` stay as they are (legal in a segment, and what ids are spelt with). */
const segment = (part: string): string => encodeURIComponent(part).replace(/%40/g, '@').replace(/%3A/gi, ':')
