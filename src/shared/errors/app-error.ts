import type { ErrorTypeName } from './catalogue'

/**
 * An error as it crosses the bridge: plain data, never a thrown object.
 * `errorType` is a name from the error catalogue (src/shared/errors/catalogue.ts), which holds
 * the provider types and the bridge's, pricing's and store's own, each with en and zh-CN texts.
 */
export interface AppError {
  errorType: ErrorTypeName
  message: string
  /** HTTP-like status from the catalogue's status mapping, when known. */
  status?: number
  provider?: string
  /** Extra structured detail that is safe to show (never keys). */
  detail?: unknown
}

/** Errors the bridge itself raises, before any service runs. */
export const BridgeErrorType = {
  Validation: 'ValidationError',
  UnknownProcedure: 'UnknownProcedure',
  UnknownStream: 'UnknownStream',
  Internal: 'InternalError',
  Unauthorized: 'InvalidAccessCode',
  Disconnected: 'BridgeDisconnected'
} as const

export type Result<T> = { ok: true; value: T } | { ok: false; error: AppError }

export const ok = <T>(value: T): Result<T> => ({ ok: true, value })
export const fail = (error: AppError): { ok: false; error: AppError } => ({ ok: false, error })

/** Thrown inside the core by services; the router turns it into a `Result` error. */
export class AppErrorException extends Error {
  constructor(readonly error: AppError) {
    super(error.message)
    this.name = error.errorType
  }
}

export const isAppError = (value: unknown): value is AppError =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as AppError).errorType === 'string' &&
  typeof (value as AppError).message === 'string'
