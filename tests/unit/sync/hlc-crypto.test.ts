import { describe, expect, it } from 'vitest'
import { HybridClock, parseHlc } from '../../../src/core/sync/hlc'
import { checkKey, KeysFileIncomplete, newKeys, open, parseKeysFile, seal, TamperedObject, unlockKeys, WrongPassphrase } from '../../../src/core/sync/crypto'

describe('hybrid logical clock', () => {
  it('a stamp after seeing one from a clock an hour ahead sorts after it', () => {
    const ahead = new HybridClock('a', () => 1_000_000 + 3_600_000)
    const behind = new HybridClock('b', () => 1_000_000)
    const first = ahead.tick()
    expect(behind.tick() < first).toBe(true)
    behind.observe(first)
    const later = behind.tick()
    expect(later > first).toBe(true)
    expect(parseHlc(later)).toMatchObject({ ms: 1_000_000 + 3_600_000, device: 'b' })
  })

  it('stamps of one clock are strictly increasing, also when the wall clock stands still or goes back', () => {
    let now = 5_000
    const clock = new HybridClock('d', () => now)
    const stamps = [clock.tick(), clock.tick()]
    now = 4_000
    stamps.push(clock.tick(), clock.tick(3_000))
    for (let i = 1; i < stamps.length; i++) expect(stamps[i]! > stamps[i - 1]!).toBe(true)
  })

  it('a stamp a week ahead is not followed (a broken clock does not drag every device along)', () => {
    const clock = new HybridClock('d', () => 10_000)
    clock.observe(new HybridClock('x', () => 10_000 + 7 * 24 * 3_600_000).tick())
    expect(parseHlc(clock.tick()).ms).toBe(10_000)
  })
})

describe('sync objects', () => {
  const kdf = { N: 1024, r: 8, p: 1 }

  it('the same passphrase gives the key; another is refused by the key check', async () => {
    const { file, key } = await newKeys('correct horse battery', kdf)
    const parsed = parseKeysFile(Buffer.from(JSON.stringify(file)))
    expect((await unlockKeys(parsed, 'correct horse battery')).equals(key)).toBe(true)
    await expect(unlockKeys(parsed, 'correct horse batterY')).rejects.toBeInstanceOf(WrongPassphrase)
    expect(checkKey(parsed, Buffer.alloc(32))).toBe(false)
    expect(() => parseKeysFile(Buffer.from(JSON.stringify({ ...file, kdf: { ...file.kdf, N: 3 } })))).toThrow()
    // Empty or cut short (still being copied) is told apart from a file this version does not understand.
    const whole = Buffer.from(JSON.stringify(file))
    for (const cut of [Buffer.alloc(0), whole.subarray(0, 20)]) expect(() => parseKeysFile(cut)).toThrow(KeysFileIncomplete)
    for (const other of ['null', '{}', JSON.stringify({ ...file, format: 2 })]) {
      expect(() => parseKeysFile(Buffer.from(other))).toThrow(/not a key file this version understands/)
      expect(() => parseKeysFile(Buffer.from(other))).not.toThrow(KeysFileIncomplete)
    }
  })

  it('round-trips; a fresh nonce each time; truncation and tampering are told apart; an object under another key fails', async () => {
    const { key } = await newKeys('pw pw pw pw', kdf)
    const body = Buffer.from('{"changes":[]}')
    const a = seal(key, { kind: 'segment', device: 'd1', seq: 1, key: 'segments/d1/1.seg' }, body)
    const b = seal(key, { kind: 'segment', device: 'd1', seq: 1, key: 'segments/d1/1.seg' }, body)
    expect(a.equals(b)).toBe(false)
    expect(open(key, 'segments/d1/1.seg', a).plaintext.equals(body)).toBe(true)
    expect(JSON.stringify(a)).not.toContain('changes')
    const cut = () => open(key, 'segments/d1/1.seg', a.subarray(0, a.length - 5))
    expect(cut).toThrow(TamperedObject)
    try {
      cut()
    } catch (error) {
      expect((error as TamperedObject).truncated).toBe(true)
    }
    const flipped = Buffer.from(a)
    flipped[flipped.length - 20] = flipped[flipped.length - 20]! ^ 1
    try {
      open(key, 'segments/d1/1.seg', flipped)
      expect.unreachable()
    } catch (error) {
      expect(error).toMatchObject({ truncated: false, key: 'segments/d1/1.seg' })
    }
    // The header is authenticated: changing the device id in it fails too.
    const header = Buffer.from(a)
    const at = header.indexOf('d1')
    header[at + 1] = '2'.charCodeAt(0)
    expect(() => open(key, 'segments/d1/1.seg', header)).toThrow(TamperedObject)
    expect(() => open(key, 'segments/d1/2.seg', a)).toThrow(TamperedObject)
  })
})
