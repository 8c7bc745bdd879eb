import { describe, expect, it } from 'vitest'
import { GatewayError, anthropicError, openAIError } from '../../../src/core/gateway/gateway-error'
import { runtimeError } from '../../../src/core/runtime/runtime-error'

// The local API checked the client's key before any work: no error from the app may come back as
// a bad key, or the client asks its user for a new one.
describe('an app error through the local API', () => {
  it('an "Invalid…" type whose own status is a client error keeps that status', () => {
    const failure = GatewayError.fromAppError(runtimeError('InvalidRequestFormat', 'tiny: not a GGUF file', 'builtin'))
    expect(failure.status).toBe(400)
    expect(openAIError(failure).error).toMatchObject({ type: 'invalid_request_error', code: null })
  })

  it('the owner’s provider refusing the owner’s key is a bad gateway, not the client’s key', () => {
    for (const type of ['InvalidProviderAPIKey', 'InvalidBedrockCredentials', 'InvalidVertexCredentials', 'NoOpenAIAPIKey'] as const) {
      const failure = GatewayError.fromAppError(runtimeError(type, 'refused', 'openai'))
      expect(failure.status, type).toBe(502)
      expect(openAIError(failure).error.code, type).not.toBe('invalid_api_key')
      expect(anthropicError(failure).error.type, type).toBe('api_error')
    }
  })

  it('a bad model file is 422 with the file named', () => {
    const failure = GatewayError.fromAppError(runtimeError('ModelFileUnusable', 'wrong-magic: This is not a GGUF model file.', 'builtin'))
    expect(failure.status).toBe(422)
    expect(failure.message).toContain('wrong-magic')
  })
})
