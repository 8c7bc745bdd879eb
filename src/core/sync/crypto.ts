import { createCipheriv, createDecipheriv, createHmac, randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto'

/**
 * End-to-end encryption of everything a device writes to the store. The passphrase never
 * leaves the device: scrypt turns it into a 256-bit key whose parameters and salt are in
 * `meta/keys.json` (with a key-check value, so a wrong passphrase is caught before anything is
 * read); each object is AES-256-GCM under a fresh 96-bit nonce, its header authenticated.
 */

export const KEYS_OBJECT = 'meta/keys.json'

export interface KeysFile {
  format: 1
  kdf: { name: 'scrypt'; N: number; r: number; p: number; salt: string }
  /** HMAC-SHA256(key, "switchboard sync key check"), base64: equal only for the same passphrase. */
  check: string
  createdAt: number
}

/** scrypt costs: N=2^15, r=8 takes ~32 MiB and a fraction of a second, once per device. */
export const DEFAULT_KDF = { N: 2 ** 15, r: 8, p: 1 }

export class WrongPassphrase extends Error {
  constructor() {
    super('The sync passphrase does not match the one this store was set up with.')
    this.name = 'WrongPassphrase'
  }
}

/** An object failed its authentication tag or its header: never merged. */
export class TamperedObject extends Error {
  constructor(
    readonly key: string,
    readonly truncated: boolean
  ) {
    super(truncated ? `${key} is incomplete (an interrupted upload).` : `${key} failed its integrity check.`)
    this.name = 'TamperedObject'
  }
}

function scrypt(passphrase: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scryptCb(passphrase.normalize('NFC'), salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key))))
}

const keyCheck = (key: Buffer) => createHmac('sha256', key).update('switchboard sync key check').digest('base64')

export async function newKeys(passphrase: string, kdf = DEFAULT_KDF, now = Date.now()): Promise<{ file: KeysFile; key: Buffer }> {
  const salt = randomBytes(16)
  const key = await deriveKey(passphrase, { name: 'scrypt', ...kdf, salt: salt.toString('base64') })
  return { file: { format: 1, kdf: { name: 'scrypt', ...kdf, salt: salt.toString('base64') }, check: keyCheck(key), createdAt: now }, key }
}

export function deriveKey(passphrase: string, kdf: KeysFile['kdf']): Promise<Buffer> {
  const maxmem = 256 * kdf.N * kdf.r + 16 * 1024 * 1024
  return scrypt(passphrase, Buffer.from(kdf.salt, 'base64'), 32, { N: kdf.N, r: kdf.r, p: kdf.p, maxmem })
}

/** The store's key file is empty or cut short (a sync program carrying a folder may not have copied all of it yet). */
export class KeysFileIncomplete extends Error {
  constructor() {
    super(`${KEYS_OBJECT} is empty or cut short.`)
  }
}

export function parseKeysFile(bytes: Uint8Array): KeysFile {
  let file: KeysFile
  try {
    file = JSON.parse(Buffer.from(bytes).toString('utf8')) as KeysFile
  } catch {
    throw new KeysFileIncomplete()
  }
  const { kdf } = file ?? {}
  const pow2 = (n: number) => Number.isInteger(n) && n >= 2 ** 10 && n <= 2 ** 20 && (n & (n - 1)) === 0
  if (file?.format !== 1 || kdf?.name !== 'scrypt' || !pow2(kdf.N) || !(kdf.r >= 1 && kdf.r <= 32) || !(kdf.p >= 1 && kdf.p <= 16) || typeof kdf.salt !== 'string' || typeof file.check !== 'string')
    throw new Error(`${KEYS_OBJECT} is not a key file this version understands.`)
  return file
}

/** The key for `passphrase`, or WrongPassphrase: nothing is read with a key that fails the check. */
export async function unlockKeys(file: KeysFile, passphrase: string): Promise<Buffer> {
  const key = await deriveKey(passphrase, file.kdf)
  if (!checkKey(file, key)) throw new WrongPassphrase()
  return key
}

export function checkKey(file: KeysFile, key: Buffer): boolean {
  const a = Buffer.from(keyCheck(key))
  const b = Buffer.from(file.check)
  return a.length === b.length && timingSafeEqual(a, b)
}

const MAGIC = Buffer.from('SBSYNC', 'ascii')
const VERSION = 1
/**
 * Objects a version-1 reader must not take as complete: a snapshot whose messages are in an image
 * beside it (and the image's chunks). A reader that predates images refuses them by this byte and
 * names them, instead of merging the snapshot without its messages and marking them seen.
 */
export const IMAGE_FORMAT = 2
const FORMATS = new Set([VERSION, IMAGE_FORMAT])

export interface ObjectHeader {
  /** What the object is: a segment, a snapshot, a chunk of a snapshot's image, a blob or a device record. */
  kind: 'segment' | 'snapshot' | 'image' | 'blob' | 'device' | 'mark'
  device: string
  seq: number
  /** The key the object was written under: an object moved to another key fails to open. */
  key: string
  /** The plaintext's length (GCM keeps it): a shorter object is an interrupted upload, not an attack. */
  length: number
}

/**
 * Time spent sealing and opening objects in this process so far, in ms: the CPU time of the
 * calling thread (the wall clock where Node cannot tell), not what other threads take meanwhile.
 * The sync benchmark reads it around a sync to report encryption's share of it.
 */
export const cryptoTime = { sealMs: 0, openMs: 0 }
const threadCpu = process.threadCpuUsage?.bind(process)
/** Now, in ms of this thread's CPU time (or of the wall clock). */
const clock = (): number => {
  if (!threadCpu) return performance.now()
  const { user, system } = threadCpu()
  return (user + system) / 1000
}

/** magic(6) · version(1) · header length(2) · header JSON · nonce(12) · ciphertext · tag(16); all before the nonce is authenticated data. */
export function seal(key: Buffer, header: Omit<ObjectHeader, 'length'>, plaintext: Uint8Array, format = VERSION): Buffer {
  const started = clock()
  const head = Buffer.from(JSON.stringify({ ...header, length: plaintext.byteLength }), 'utf8')
  const aad = Buffer.concat([MAGIC, Buffer.from([format, head.length >> 8, head.length & 0xff]), head])
  const nonce = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, nonce)
  cipher.setAAD(aad)
  // Written straight into the object: segments and image chunks are megabytes each.
  const out = Buffer.allocUnsafe(aad.length + 12 + plaintext.byteLength + 16)
  aad.copy(out, 0)
  nonce.copy(out, aad.length)
  let at = throughPieces(cipher, plaintext, out, aad.length + 12)
  at += cipher.final().copy(out, at)
  cipher.getAuthTag().copy(out, at)
  cryptoTime.sealMs += clock() - started
  return out
}

/**
 * AES-GCM in pieces of this size rather than one call over megabytes: each piece's output stays
 * in cache and in memory the allocator reuses, where one call's megabytes of fresh output are
 * page-faulted in; measured here over 114 MB, about 45–75 ms instead of 100 ms.
 */
const PIECE = 64 * 1024

/** Runs `data` through `cipher` in pieces into `out` from `at`; returns where the output ends. */
function throughPieces(cipher: { update(data: Uint8Array): Buffer }, data: Uint8Array, out: Buffer, at: number): number {
  for (let from = 0; from < data.byteLength; from += PIECE) at += cipher.update(data.subarray(from, Math.min(from + PIECE, data.byteLength))).copy(out, at)
  return at
}

/**
 * Opens an object written by `seal` under `storeKey`; TamperedObject when it fails in any way.
 * `into`: a buffer to reuse for the plaintext when it is large enough (the plaintext is then a
 * view of it, good until it is reused): a download of many chunks need not fault in fresh memory
 * for each.
 */
export function open(key: Buffer, storeKey: string, bytes: Uint8Array, into?: Buffer): { header: ObjectHeader; plaintext: Buffer } {
  const started = clock()
  try {
    return opened(key, storeKey, bytes, into)
  } finally {
    cryptoTime.openMs += clock() - started
  }
}

function opened(key: Buffer, storeKey: string, bytes: Uint8Array, into?: Buffer): { header: ObjectHeader; plaintext: Buffer } {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const fixed = MAGIC.length + 3
  if (data.length < fixed) throw new TamperedObject(storeKey, true)
  if (!data.subarray(0, MAGIC.length).equals(MAGIC) || !FORMATS.has(data[MAGIC.length]!)) throw new TamperedObject(storeKey, false)
  const headLength = (data[MAGIC.length + 1]! << 8) | data[MAGIC.length + 2]!
  if (data.length < fixed + headLength + 12 + 16) throw new TamperedObject(storeKey, true)
  let header: ObjectHeader
  try {
    header = JSON.parse(data.subarray(fixed, fixed + headLength).toString('utf8')) as ObjectHeader
  } catch {
    throw new TamperedObject(storeKey, false)
  }
  const whole = fixed + headLength + 12 + (Number.isSafeInteger(header.length) ? header.length : 0) + 16
  if (data.length < whole) throw new TamperedObject(storeKey, true)
  if (data.length > whole) throw new TamperedObject(storeKey, false)
  const nonce = data.subarray(fixed + headLength, fixed + headLength + 12)
  const body = data.subarray(fixed + headLength + 12, data.length - 16)
  const tag = data.subarray(data.length - 16)
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, nonce)
    decipher.setAAD(data.subarray(0, fixed + headLength))
    decipher.setAuthTag(tag)
    const plaintext = into && into.length >= body.length ? into.subarray(0, body.length) : Buffer.allocUnsafe(body.length)
    const at = throughPieces(decipher, body, plaintext, 0)
    decipher.final().copy(plaintext, at)
    if (header.key !== storeKey) throw new Error('moved')
    return { header, plaintext }
  } catch {
    throw new TamperedObject(storeKey, false)
  }
}

/** A blob's name in the store: keyed, so the store cannot tell which known file a user has. */
export const blobName = (key: Buffer, sha256: string) => createHmac('sha256', key).update(`blob:${sha256}`).digest('hex')
