import { describe, expect, it } from 'vitest'
import { ERROR_CATALOGUE, GOOGLE_BLOCK_REASONS, describeError, googleBlockReasonText, httpStatusText, statusForErrorType } from '../../../src/shared/errors/catalogue'

/** Every error type named in product.md §8 and providers.md §8 is catalogued with en and zh-CN texts. */
const PROVIDERS_MD = ['AgentRuntimeError', 'LocationNotSupportError', 'QuotaLimitReached', 'InsufficientQuota', 'ModelNotFound', 'PermissionDenied', 'ExceededContextWindow', 'InvalidProviderAPIKey', 'ProviderBizError', 'InvalidOllamaArgs', 'OllamaBizError', 'OllamaServiceUnavailable', 'InvalidBedrockCredentials', 'InvalidVertexCredentials', 'StreamChunkError', 'InvalidGithubToken', 'ConnectionCheckFailed', 'NoOpenAIAPIKey']
const PRODUCT_MD = ['PluginMarketIndexNotFound', 'PluginMarketIndexInvalid', 'PluginMetaNotFound', 'PluginMetaInvalid', 'PluginManifestNotFound', 'PluginManifestInvalid', 'PluginApiNotFound', 'PluginApiParamsError', 'PluginSettingsInvalid', 'PluginServerError', 'PluginGatewayError', 'PluginOpenApiInitError', 'PluginFailToTransformArguments', 'InvalidAccessCode', 'CreateMessageError', 'UnknownChatFetchError']
// InvalidClerkUser, SystemTimeNotMatchError, SubscriptionKeyMismatch, FreePlanLimit and SubscriptionPlanLimit
// belong to a hosted service (sign-in, subscriptions, credits) the app does not have: not catalogued
// (tests/unit/runtime/error-types.test.ts); their statuses still follow the mapping below.

describe('error catalogue', () => {
  it('has every named type with a title and a fix in both languages', () => {
    for (const type of [...PROVIDERS_MD, ...PRODUCT_MD]) {
      expect(ERROR_CATALOGUE, type).toHaveProperty(type)
      for (const locale of ['en', 'zh-CN'] as const) {
        const text = describeError(type, locale)
        expect(text.title.length, `${type} ${locale}`).toBeGreaterThan(3)
        expect(text.fix.length, `${type} ${locale}`).toBeGreaterThan(3)
      }
    }
    expect(describeError('OllamaServiceUnavailable', 'en').fix).toMatch(/cross-origin/)
    expect(describeError('ConnectionCheckFailed', 'en').fix).toMatch(/\/v1/)
  })

  it('status mapping of product.md §8, 470/471/472 included', () => {
    expect(statusForErrorType('InvalidProviderAPIKey')).toBe(401)
    expect(statusForErrorType('InvalidAnything')).toBe(401)
    expect(statusForErrorType('NoOpenAIAPIKey')).toBe(401)
    for (const t of ['ExceededContextWindow', 'SubscriptionKeyMismatch', 'SystemTimeNotMatchError']) expect(statusForErrorType(t)).toBe(400)
    expect(statusForErrorType('LocationNotSupportError')).toBe(403)
    expect(statusForErrorType('ModelNotFound')).toBe(404)
    expect(statusForErrorType('InsufficientQuota')).toBe(429)
    expect(statusForErrorType('QuotaLimitReached')).toBe(429)
    expect(statusForErrorType('AgentRuntimeError')).toBe(470)
    expect(statusForErrorType('ProviderBizError')).toBe(471)
    expect(statusForErrorType('OllamaServiceUnavailable')).toBe(472)
    expect(statusForErrorType('OllamaBizError')).toBe(472)
    expect(statusForErrorType(503)).toBe(503)
  })

  it('HTTP status texts from 400 to 524 in both languages; Google block reasons with a default', () => {
    for (const s of [400, 401, 403, 404, 405, 429, 500, 502, 503, 504, 524]) {
      expect(httpStatusText(s, 'en')).toBeTruthy()
      expect(httpStatusText(s, 'zh-CN')).toBeTruthy()
    }
    const texts = new Set(GOOGLE_BLOCK_REASONS.map((r) => googleBlockReasonText(r, 'en')))
    expect(texts.size).toBe(GOOGLE_BLOCK_REASONS.length)
    expect(googleBlockReasonText('SOMETHING_NEW', 'zh-CN')).toBe(googleBlockReasonText(undefined, 'zh-CN'))
  })
})
