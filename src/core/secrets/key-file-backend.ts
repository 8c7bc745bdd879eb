import { createCipheriv, createDecipheriv, randomBytes, scrypt as scryptCallback, type ScryptOptions } from 'node:crypto'
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import type { KeyringBackend } from './keyring-backend'

/** scrypt's cost: ~100 ms and 32 MB once per start, enough to make guessing a passphrase slow. */
const KDF = { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const

interface KeyFile {
  format: 'switchboard-keys'
  version: 1
  kdf: { name: 'scrypt'; N: number; r: number; p: number; salt: string }
  /** AES-256-GCM of the JSON map account → key. */
  iv: string
  tag: string
  data: string
}

const scrypt = (passphrase: string, salt: Buffer, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scryptCallback(passphrase, salt, 32, options, (error, key) => (error ? reject(error) : resolve(key))))

/** The key file cannot be used: a wrong passphrase, or a file that is not one (the message names which). */
export class KeyFileError extends Error {}

/**
 * Keys in one file encrypted with a passphrase, for machines without an OS keychain (a headless
 * server): scrypt derives the key, AES-256-GCM encrypts and authenticates the whole map, so a
 * wrong passphrase or a changed byte is refused rather than read as garbage. Written whole
 * (temporary file, then rename) with a fresh IV on every change, readable by the owner only.
 */
export class EncryptedKeyFile implements KeyringBackend {
  private constructor(
    private readonly path: string,
    private readonly key: Buffer,
    private readonly kdf: KeyFile['kdf'],
    private values: Map<string, string>
  ) {}

  /** Opens (or, when absent, starts) the file at `path`. Throws KeyFileError on a wrong passphrase. */
  static async open(path: string, passphrase: string): Promise<EncryptedKeyFile> {
    if (!passphrase) throw new KeyFileError('The key file passphrase is empty.')
    if (!existsSync(path)) {
      const kdf = { name: 'scrypt' as const, N: KDF.N, r: KDF.r, p: KDF.p, salt: randomBytes(16).toString('base64') }
      const key = await scrypt(passphrase, Buffer.from(kdf.salt, 'base64'), { ...KDF })
      const file = new EncryptedKeyFile(path, key, kdf, new Map())
      file.write()
      return file
    }
    let stored: KeyFile
    try {
      stored = JSON.parse(readFileSync(path, 'utf8')) as KeyFile
      if (stored.format !== 'switchboard-keys' || stored.version !== 1 || stored.kdf?.name !== 'scrypt') throw new Error('format')
    } catch {
      throw new KeyFileError(`${path} is not a Switchboard key file. Move it away to start a new one.`)
    }
    const key = await scrypt(passphrase, Buffer.from(stored.kdf.salt, 'base64'), { N: stored.kdf.N, r: stored.kdf.r, p: stored.kdf.p, maxmem: KDF.maxmem })
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(stored.iv, 'base64'))
      decipher.setAuthTag(Buffer.from(stored.tag, 'base64'))
      const plain = Buffer.concat([decipher.update(Buffer.from(stored.data, 'base64')), decipher.final()]).toString('utf8')
      return new EncryptedKeyFile(path, key, stored.kdf, new Map(Object.entries(JSON.parse(plain) as Record<string, string>)))
    } catch {
      throw new KeyFileError(`The key file ${path} could not be unlocked: the passphrase is wrong (or the file was changed).`)
    }
  }

  private write(): void {
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', this.key, iv)
    const data = Buffer.concat([cipher.update(JSON.stringify(Object.fromEntries(this.values)), 'utf8'), cipher.final()])
    const file: KeyFile = { format: 'switchboard-keys', version: 1, kdf: this.kdf, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') }
    const temporary = `${this.path}.${process.pid}.tmp`
    writeFileSync(temporary, JSON.stringify(file), { mode: 0o600 })
    renameSync(temporary, this.path)
  }

  async get(account: string) {
    return this.values.get(account) ?? null
  }
  async set(account: string, value: string) {
    this.values.set(account, value)
    this.write()
  }
  async delete(account: string) {
    const had = this.values.delete(account)
    if (had) this.write()
    return had
  }
}
