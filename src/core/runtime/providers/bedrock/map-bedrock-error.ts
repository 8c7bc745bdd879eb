import type { AppError } from '../../../../shared/errors/app-error'
import { redactText } from '../../../../shared/errors/redact'
import { mapProviderError } from '../../errors/map-provider-error'
import { runtimeError } from '../../runtime-error'
import type { ErrorTypeName } from '../../../../shared/errors/catalogue'

const CREDENTIAL_ERRORS = new Set(['UnrecognizedClientException', 'InvalidSignatureException', 'ExpiredTokenException', 'IncompleteSignatureException', 'MissingAuthenticationTokenException'])
const THROTTLED = new Set(['ThrottlingException', 'TooManyRequestsException', 'ServiceQuotaExceededException'])
/** Bedrock's modelled exceptions that name their meaning outright. */
const BY_NAME: Record<string, ErrorTypeName> = {
  AccessDeniedException: 'PermissionDenied',
  ResourceNotFoundException: 'ModelNotFound',
  ServiceUnavailableException: 'ProviderServiceUnavailable',
  ModelNotReadyException: 'ProviderServiceUnavailable'
}

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
  const named = !ctx.aborted && e.name ? BY_NAME[e.name] : undefined
  if (named) return runtimeError(named, message, ctx.provider, { name: e.name, status })
  // The shared mapping reads `status`; AWS keeps it in $metadata.
  const facts = error && typeof error === 'object' ? { name: e.name, message: e.message, code: e.name, ...(status !== undefined ? { status } : {}), cause: (error as { cause?: unknown }).cause } : error
  return mapProviderError(facts, { provider: ctx.provider, secrets: ctx.secrets, aborted: ctx.aborted })
}
