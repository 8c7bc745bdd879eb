import { describe, expect, it } from 'vitest'
import { toAppError } from '../../../src/shared/errors/to-app-error'
import { toAppError as bridgeToAppError } from '../../../src/core/bridge/to-app-error'
import { AppErrorException } from '../../../src/shared/errors/app-error'
import { mapProviderError } from '../../../src/core/runtime/errors/map-provider-error'

describe('one error normaliser', () => {
  it('the bridge uses the shared normaliser itself (not a copy with other defaults)', () => {
    expect(bridgeToAppError).toBe(toAppError)
  })

  it('keeps catalogue errors as they are', () => {
    const error = { errorType: 'ModelNotFound' as const, message: 'no such model', status: 404, provider: 'openai' }
    expect(toAppError(new AppErrorException(error))).toEqual(error)
  })

  it('an abort is the same cancellation the runtime reports (type, message and status)', () => {
    const abort = Object.assign(new Error('This operation was aborted'), { name: 'AbortError' })
    const runtime = mapProviderError(abort, { provider: 'openai' })
    expect(toAppError(abort)).toEqual({ errorType: runtime.errorType, message: runtime.message, status: runtime.status })
  })

  it('anything else is an InternalError, never blamed on a provider, with keys and hosts redacted', () => {
    const error = toAppError(new TypeError('cannot read x of undefined calling https://api.private-host.example.com with sk-abcdefghijklmnop'))
    expect(error).toMatchObject({ errorType: 'InternalError', status: 500 })
    expect(error.message).toContain('cannot read x of undefined')
    expect(error.message).not.toContain('sk-abcdefghijklmnop')
    expect(error.message).not.toContain('private-host.example')
  })

  it('file-system failures say what is true', () => {
    expect(toAppError(Object.assign(new Error('no space'), { code: 'ENOSPC' }))).toMatchObject({ errorType: 'DiskFull', status: 507 })
    expect(toAppError(Object.assign(new Error('ro'), { code: 'EROFS' }))).toMatchObject({ errorType: 'DataFolderReadOnly' })
  })
})
