import { describe, expect, it } from 'vitest'
import { mapProviderError } from '../../../src/core/runtime/errors/map-provider-error'
import { errorRulesOf } from '../../../src/core/runtime/provider-specs'

/** Provider rules of providers.md §8 that native adapters reuse through mapProviderError. */
const apiError = (status: number | undefined, message: string, code?: string) => Object.assign(new Error(message), { status, error: { message, code } })

describe('mapProviderError provider rules', () => {
  it('Google: location, invalid key, 429, other', () => {
    expect(mapProviderError(apiError(400, 'User location is not supported for the API use.'), { provider: 'google', rules: errorRulesOf('google') }).errorType).toBe('LocationNotSupportError')
    expect(mapProviderError(apiError(400, 'API key not valid. Please pass a valid API key.'), { provider: 'google', rules: errorRulesOf('google') }).errorType).toBe('InvalidProviderAPIKey')
    expect(mapProviderError(apiError(429, 'Resource has been exhausted'), { provider: 'google', rules: errorRulesOf('google') }).errorType).toBe('QuotaLimitReached')
    expect(mapProviderError(apiError(400, 'Something odd'), { provider: 'google', rules: errorRulesOf('google') }).errorType).toBe('ProviderBizError')
  })

  it('Hugging Face stream texts', () => {
    expect(mapProviderError(new Error('Model requires a Pro subscription'), { provider: 'huggingface', rules: errorRulesOf('huggingface') }).errorType).toBe('PermissionDenied')
    expect(mapProviderError(new Error('Authorization header is correct, but the token seems invalid'), { provider: 'huggingface', rules: errorRulesOf('huggingface') }).errorType).toBe('InvalidProviderAPIKey')
  })

  it('Azure DeploymentNotFound names the deployment', () => {
    const error = mapProviderError(apiError(404, 'The API deployment for this resource does not exist.', 'DeploymentNotFound'), { provider: 'azure', rules: errorRulesOf('azure'), deploymentId: 'my-gpt4o' })
    expect(error.errorType).toBe('ModelNotFound')
    expect(error.message).toContain('my-gpt4o')
  })

  it('Anthropic and Groq 403 → LocationNotSupportError; others 403 → PermissionDenied', () => {
    expect(mapProviderError(apiError(403, 'Request not allowed'), { provider: 'anthropic', rules: errorRulesOf('anthropic') }).errorType).toBe('LocationNotSupportError')
    expect(mapProviderError(apiError(403, 'Request not allowed'), { provider: 'groq', rules: errorRulesOf('groq') }).errorType).toBe('LocationNotSupportError')
    expect(mapProviderError(apiError(403, 'Request not allowed'), { provider: 'openai', rules: errorRulesOf('openai') }).errorType).toBe('PermissionDenied')
  })

  it('cancellation wins over everything; keys and remote hosts never appear', () => {
    expect(mapProviderError(apiError(500, 'boom'), { provider: 'openai', rules: errorRulesOf('openai'), aborted: true })).toMatchObject({ errorType: 'ProviderBizError', message: 'Request was cancelled', status: 471 })
    const key = 'sk-abcdef0123456789'
    const error = mapProviderError(apiError(400, `bad key ${key} at https://api.secret-host.example.com/v1/chat`), { provider: 'openai', rules: errorRulesOf('openai'), secrets: [key], baseURL: 'https://api.secret-host.example.com/v1' })
    const text = JSON.stringify(error)
    expect(text).not.toContain(key)
    expect(text).not.toContain('secret-host.example')
  })
})
