import { describe, expect, it } from 'vitest'
import { nativeLoadError } from '../../../src/shared/errors/native-load-error'

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

  it('names libstdc++ for the engine’s GLIBCXX requirement', () => {
    expect(nativeLoadError(new Error("version `GLIBCXX_3.4.30' not found (required by llama-addon.node)"), 'The built-in engine')?.message).toContain('GLIBCXX_3.4.30 from the C++ runtime (libstdc++)')
  })

  it('leaves other failures alone', () => {
    expect(nativeLoadError(new Error('SQLITE_CORRUPT: database disk image is malformed'), 'x')).toBeUndefined()
    expect(nativeLoadError(undefined, 'x')).toBeUndefined()
  })
})
