import { describe, expect, it } from 'vitest'
import { nativeLoadError } from '../../../src/shared/errors/native-load-error'
import { engineSystemError, libstdcxxOffers } from '../../../src/core/engine/system-check'
import { AppErrorException } from '../../../src/shared/errors/app-error'

const fail = (path: string): never => {
  throw new Error(`ENOENT: ${path}`)
}

describe('a native library that needs a newer glibc', () => {
  it('becomes a message naming the system requirement, not a loader stack', () => {
    // As Node reports better-sqlite3's prebuild on Ubuntu 20.04 / Debian 11.
    const error = new Error("/opt/Switchboard/resources/app.asar.unpacked/node_modules/better-sqlite3/prebuilds/linux-x64.node: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.34' not found (required by /opt/Switchboard/resources/app.asar.unpacked/node_modules/better-sqlite3/prebuilds/linux-x64.node)")
    const mapped = nativeLoadError(error, 'The database (SQLite)')
    expect(mapped).toMatchObject({ errorType: 'UnsupportedSystem', detail: { needed: 'GLIBC_2.34' } })
    expect(mapped!.message).toMatch(/^The database \(SQLite\) cannot start on this system: it needs GLIBC_2\.34 from the C library \(glibc\)/)
    expect(mapped!.message).toContain('Ubuntu 22.04')
    expect(mapped!.message).not.toContain('/lib/x86_64-linux-gnu')
  })

  it('names libstdc++ for the engine’s GLIBCXX requirement, and the systems that have it', () => {
    const message = nativeLoadError(new Error("version `GLIBCXX_3.4.30' not found (required by libllama-common.so)"), 'The built-in engine')?.message
    expect(message).toContain('GLIBCXX_3.4.30 from the C++ runtime (libstdc++)')
    // RHEL 9 and Fedora 35 ship GCC 11's libstdc++ (GLIBCXX_3.4.29): the engine does not load there.
    expect(message).toContain('GCC 12')
    expect(message).toContain('Fedora 36, RHEL 10')
    expect(message).not.toContain('RHEL 9')
  })

  it('the engine’s start says so when this Linux’s libstdc++ lacks GLIBCXX_3.4.30', () => {
    const gcc11 = Buffer.from('GLIBCXX_3.4.28\0GLIBCXX_3.4.29\0', 'latin1')
    const gcc12 = Buffer.from('GLIBCXX_3.4.29\0GLIBCXX_3.4.30\0', 'latin1')
    expect(libstdcxxOffers('GLIBCXX_3.4.30', ['/a', '/b'], (p) => (p === '/b' ? gcc11 : fail(p)))).toBe(false)
    expect(libstdcxxOffers('GLIBCXX_3.4.30', ['/b'], () => gcc12)).toBe(true)
    expect(libstdcxxOffers('GLIBCXX_3.4.30', ['/a'], fail)).toBeUndefined()
    const noBinary = new Error('NoBinaryFoundError')
    const named = engineSystemError(noBinary, 'linux', () => false)
    expect(named).toBeInstanceOf(AppErrorException)
    expect((named as AppErrorException).error).toMatchObject({ errorType: 'UnsupportedSystem', detail: { needed: 'GLIBCXX_3.4.30' } })
    expect(engineSystemError(noBinary, 'linux', () => true)).toBe(noBinary)
    expect(engineSystemError(noBinary, 'linux', () => undefined)).toBe(noBinary)
    expect(engineSystemError(noBinary, 'darwin', () => false)).toBe(noBinary)
  })


  it('leaves other failures alone', () => {
    expect(nativeLoadError(new Error('SQLITE_CORRUPT: database disk image is malformed'), 'x')).toBeUndefined()
    expect(nativeLoadError(undefined, 'x')).toBeUndefined()
  })
})
