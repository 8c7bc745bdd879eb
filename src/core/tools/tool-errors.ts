import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import type { AppError } from '../../shared/errors/app-error'
import { AppErrorException } from '../../shared/errors/app-error'

/**
 * Tool failures mapped to the spec's plugin errors (product.md §8). Each becomes an error
 * result the model reads (so it can recover) and an error shown on the tool card.
 */
export type PluginErrorType =
  | 'PluginManifestInvalid'
  | 'PluginApiNotFound'
  | 'PluginApiParamsError'
  | 'PluginFailToTransformArguments'
  | 'PluginServerError'
  | 'PluginGatewayError'
  | 'PluginSettingsInvalid'

const STATUS: Record<PluginErrorType, number> = {
  PluginManifestInvalid: 493,
  PluginApiNotFound: 404,
  PluginApiParamsError: 400,
  PluginFailToTransformArguments: 500,
  PluginServerError: 500,
  PluginGatewayError: 502,
  PluginSettingsInvalid: 422
}

export const pluginError = (errorType: PluginErrorType, message: string): AppError => ({ errorType, status: STATUS[errorType], message })

export const pluginException = (errorType: PluginErrorType, message: string): AppErrorException => new AppErrorException(pluginError(errorType, message))

/** Any failure of a tool call, as a plugin error naming the server and tool. */
export function toPluginError(error: unknown, where: { server: string; tool?: string; timeoutMs?: number }): AppError {
  if (error instanceof AppErrorException) return error.error
  if (error && typeof error === 'object' && 'errorType' in error && 'message' in error) return error as AppError
  const name = where.tool ? `${where.server} › ${where.tool}` : where.server
  if (error instanceof McpError) {
    const detail = error.message.replace(/^MCP error -?\d+: /, '')
    switch (error.code) {
      case ErrorCode.RequestTimeout:
        return pluginError('PluginGatewayError', `${name} did not answer within ${Math.round((where.timeoutMs ?? 60_000) / 1000)} s (no progress reported).`)
      case ErrorCode.ConnectionClosed:
        return pluginError('PluginGatewayError', `${where.server} closed the connection (it may have exited): ${detail}`)
      case ErrorCode.InvalidParams:
        return pluginError('PluginApiParamsError', `${name} refused the arguments: ${detail}`)
      case ErrorCode.MethodNotFound:
        return pluginError('PluginApiNotFound', `${name}: ${detail}`)
      default:
        return pluginError('PluginServerError', `${name} failed: ${detail}`)
    }
  }
  // The SDK checks every message against the protocol's schemas; a failure is a list of issues
  // (a ZodError), whose message is that list as JSON: say what was wrong in a sentence instead.
  const issues = (error as { issues?: unknown } | undefined)?.issues
  if (error instanceof Error && Array.isArray(issues) && issues.length > 0) {
    const first = issues[0] as { path?: unknown[]; message?: string }
    const where = Array.isArray(first.path) && first.path.length ? `${first.path.map(String).join('.')}: ` : ''
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''
    return pluginError('PluginServerError', `${name} answered with something that is not valid MCP: ${where}${String(first.message ?? 'invalid').slice(0, 160)}${more}.`)
  }
  if (error instanceof Error && error.name === 'AbortError') return pluginError('PluginGatewayError', `${name} was cancelled.`)
  const message = error instanceof Error ? error.message : String(error)
  return pluginError('PluginGatewayError', `Could not reach ${where.server}: ${message}`)
}
