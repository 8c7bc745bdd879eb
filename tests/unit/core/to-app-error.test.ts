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

  it('SQLite failures from code that reaches the database directly say what is true, not InternalError', () => {
    const sqlite = (code: string) => Object.assign(new Error(`sqlite says ${code}`), { code })
    expect(toAppError(sqlite('SQLITE_FULL'))).toMatchObject({ errorType: 'DiskFull', status: 507 })
    expect(toAppError(sqlite('SQLITE_READONLY_DBMOVED'))).toMatchObject({ errorType: 'DataFolderReadOnly' })
    expect(toAppError(sqlite('SQLITE_BUSY'))).toMatchObject({ errorType: 'DatabaseBusy', status: 503 })
    expect(toAppError(sqlite('SQLITE_IOERR_WRITE'))).toMatchObject({ errorType: 'StorageError' })
    for (const code of ['SQLITE_FULL', 'SQLITE_READONLY', 'SQLITE_BUSY', 'SQLITE_IOERR_WRITE']) expect(toAppError(sqlite(code)).message).toMatch(/\. .+\.$/)
    // A constraint is a bug or bad input, and a damaged file may be an import rather than the
    // database a restart restores: for their callers to word, still an InternalError here.
    expect(toAppError(sqlite('SQLITE_CONSTRAINT_UNIQUE'))).toMatchObject({ errorType: 'InternalError' })
    expect(toAppError(sqlite('SQLITE_NOTADB'))).toMatchObject({ errorType: 'InternalError' })
  })
})
