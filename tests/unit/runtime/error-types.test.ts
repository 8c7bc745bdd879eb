import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { BridgeErrorType } from '../../../src/shared/errors/app-error'
import { ERROR_CATALOGUE, describeAppError, describeError, googleBlockReasonText, resolveErrorStatus } from '../../../src/shared/errors/catalogue'
import { runtimeError } from '../../../src/core/runtime/runtime-error'
import { invalidOllamaArgs } from '../../../src/core/runtime/providers/ollama/ollama-errors'
import { validateImageParams } from '../../../src/shared/image-params/validate'
import { createGoogleStreamTransformer } from '../../../src/core/runtime/providers/google/google-stream-transformer'

afterEach(() => vi.restoreAllMocks())

/** Every errorType literal thrown or returned anywhere in src/. */
function thrownTypes(): Set<string> {
  const found = new Set<string>()
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      if (statSync(path).isDirectory()) walk(path)
      else if (/\.tsx?$/.test(name)) for (const m of readFileSync(path, 'utf8').matchAll(/errorType: '([A-Za-z]+)'/g)) found.add(m[1]!)
    }
  }
  walk('src')
  return found
}

describe('error types (product.md §8)', () => {
  it('every type the app raises, the bridge\'s own included, has a catalogue entry with en and zh-CN texts', () => {
    const types = new Set([...thrownTypes(), ...Object.values(BridgeErrorType), 'DataNotReady', 'ValidationError', 'InternalError', 'NotFound', 'UnknownStream', 'InvalidImageParams', 'NoPricing', 'InvalidPricing', 'UnsupportedPricing', 'MissingPricingParams', 'PriceNotFound'])
    for (const type of types) {
      expect(ERROR_CATALOGUE, type).toHaveProperty(type)
      if (type !== 'ProviderBizError') expect(describeError(type, 'en').title, type).not.toBe(ERROR_CATALOGUE.ProviderBizError.text.en.title)
      expect(describeError(type, 'zh-CN').title.length, type).toBeGreaterThan(1)
    }
    // "Data still opening" is not shown as a provider error any more.
    expect(describeError('DataNotReady', 'en').title).toMatch(/still opening/)
  })

  it('the hosted-service errors the app has no use for are not catalogued; plugin errors stay', () => {
    for (const type of ['InvalidClerkUser', 'SubscriptionKeyMismatch', 'SystemTimeNotMatchError', 'FreePlanLimit', 'SubscriptionPlanLimit']) expect(ERROR_CATALOGUE).not.toHaveProperty(type)
    expect(ERROR_CATALOGUE).toHaveProperty('PluginManifestInvalid')
  })

  it('InvalidOllamaArgs carries 401 like every Invalid* type', () => {
    expect(invalidOllamaArgs('bad url').error.status).toBe(401)
    expect(runtimeError('InvalidOllamaArgs', 'x').status).toBe(401)
    const params = validateImageParams({ prompt: { default: '' } }, { prompt: '' })
    expect(params.ok === false && params.error).toMatchObject({ errorType: 'InvalidImageParams', status: 401 })
  })

  it('an unknown type keeps the status it came with; a status outside 200–599 is logged', () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {})
    expect(resolveErrorStatus('SomethingUpstreamOnly', 418)).toBe(418)
    expect(resolveErrorStatus('ProviderBizError', 418)).toBe(471) // known types follow the mapping
    // Through the runtime's error builder too (a type from outside the catalogue, e.g. a recorded upstream one).
    expect(runtimeError('SomethingUpstreamOnly' as never, 'x', 'openai', undefined, 418).status).toBe(418)
    expect(log).not.toHaveBeenCalled()
    expect(resolveErrorStatus('SomethingUpstreamOnly', 999)).toBe(999)
    expect(resolveErrorStatus(150)).toBe(150)
    expect(log).toHaveBeenCalledTimes(2)
    expect(String(log.mock.calls[0]![0])).toMatch(/999/)
  })

  it('an unknown type with an HTTP status is described by the status text', () => {
    expect(describeAppError({ errorType: 'SomethingUpstreamOnly', status: 503 }, 'zh-CN').title).toBe('服务不可用：服务商繁忙或宕机。')
  })

  it('a Google block is titled by its reason, in the user\'s language', () => {
    const events: unknown[] = []
    const transformer = createGoogleStreamTransformer({ provider: 'google' })
    for (const e of transformer.push({ promptFeedback: { blockReason: 'SAFETY' } })) events.push(e)
    const error = (events[0] as { data: { errorType: string; detail: unknown } }).data
    const zh = describeAppError(error, 'zh-CN')
    expect(zh.title).toBe(googleBlockReasonText('SAFETY', 'zh-CN'))
    expect(zh.title).not.toBe(ERROR_CATALOGUE.ProviderBizError.text['zh-CN'].title)
    expect(describeAppError(error, 'en').title).toBe('The content was blocked for safety reasons. Please adjust it and try again.')
    // A blocking finishReason is titled the same way.
    expect(describeAppError({ errorType: 'ProviderBizError', detail: { finishReason: 'RECITATION' } }, 'zh-CN').title).toBe(googleBlockReasonText('RECITATION', 'zh-CN'))
  })
})
