import type { AppError } from '../../../../shared/errors/app-error'
import { redactText } from '../../../../shared/errors/redact'
import { mapProviderError } from '../../errors/map-provider-error'
import { runtimeError } from '../../runtime-error'

const CREDENTIAL_ERRORS = new Set(['UnrecognizedClientException', 'InvalidSignatureException', 'ExpiredTokenException', 'IncompleteSignatureException', 'MissingAuthenticationTokenException'])
const THROTTLED = new Set(['ThrottlingException', 'TooManyRequestsException', 'ServiceQuotaExceededException'])

/**
 * AWS errors carry their status in `$metadata.httpStatusCode` and their kind in `name`:
 * signature and key errors → InvalidBedrockCredentials, throttling → QuotaLimitReached,
 * the rest through the shared mapping with the status lifted where it expects it.
 */
export function mapBedrockError(error: unknown, ctx: { provider: string; secrets: Array<string | undefined>; aborted?: boolean }): AppError {
  const e = (error ?? {}) as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } }
  const status = e.$metadata?.httpStatusCode
  const message = redactText(e.message ?? 'Unknown error', ctx.secrets)
  if (!ctx.aborted && e.name && CREDENTIAL_ERRORS.has(e.name)) {
    return runtimeError('InvalidBedrockCredentials', message, ctx.provider, { name: e.name, status })
  }
  if (!ctx.aborted && e.name && THROTTLED.has(e.name)) return runtimeError('QuotaLimitReached', message, ctx.provider, { name: e.name, status })
  const lifted = status !== undefined && error && typeof error === 'object' ? Object.assign(Object.create(Object.getPrototypeOf(error) as object) as object, error, { status }) : error
  return mapProviderError(lifted, { provider: ctx.provider, secrets: ctx.secrets, aborted: ctx.aborted })
}
