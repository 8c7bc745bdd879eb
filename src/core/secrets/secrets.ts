import type { KeychainStatus, KeyInfo } from '../../shared/data/key-info'
import { AppErrorException } from '../../shared/errors/app-error'
import { MemoryBackend, type KeyringBackend } from './keyring-backend'
import { napiKeyringBackend, type KeyringModule } from './napi-keyring-backend'
import { EncryptedKeyFile, KeyFileError } from './key-file-backend'

export const DEFAULT_SERVICE = 'Switchboard'
const NAME = /^[a-z0-9][a-z0-9._:-]{0,99}$/i
/** Keys shorter than this get no last4: four characters of a short key is too much of it. */
const MIN_LENGTH_FOR_LAST4 = 8

/** A keychain waiting on an unlock prompt nobody will answer must not hang start-up or a call. */
const KEYCHAIN_TIMEOUT_MS = 5_000

class KeychainTimeout extends Error {
  constructor() {
    super('did not answer in time')
  }
}

/** The native keychain addon did not load (a build for another platform, a missing binary). */
class KeyringModuleMissing extends Error {
  constructor(cause: unknown) {
    super('keychain module did not load', { cause })
  }
}

/** The keychain calls cannot be aborted, so the deadline only stops our waiting (its timer does not hold the process). */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  const deadline = AbortSignal.timeout(ms)
  const timeout = new Promise<never>((_, reject) => deadline.addEventListener('abort', () => reject(new KeychainTimeout()), { once: true }))
  return Promise.race([promise, timeout])
}

/**
 * Why a keychain failed, in words that name the fix. Built from the error's kind only:
 * a backend's own text is never shown, so nothing it echoed can leak.
 */
export function keychainReason(error: unknown): string {
  const text = `${(error as { code?: unknown })?.code ?? ''} ${(error as { message?: unknown })?.message ?? ''}`
  const later = 'Until then, keys you enter are kept in memory for this session only.'
  if (error instanceof KeyringModuleMissing)
    return `This build of Switchboard could not load its keychain module for this system (${process.platform}-${process.arch}). Reinstall the build made for this computer. ${later}`
  if (error instanceof KeychainTimeout)
    return `The system keychain did not answer (it may be waiting to be unlocked). Unlock it and restart Switchboard. ${later}`
  if (/locked|AccessDenied|NotAuthorized|dismissed|prompt/i.test(text))
    return `The system keychain is locked. Unlock it (sign in to your desktop session, or unlock the "Login" keyring in Passwords and Keys) and restart Switchboard. ${later}`
  if (process.platform === 'linux')
    return `No system keychain answered (the Secret Service on D-Bus). Install and start GNOME Keyring or KWallet, then restart Switchboard. ${later}`
  return `The system keychain did not answer. Check that it is available to Switchboard, then restart it. ${later}`
}

export interface OpenSecretsOptions {
  /** Keychain service name; tests use their own so they never touch a user's entries. */
  service?: string
  /** Injected in tests; defaults to the OS keychain. */
  backend?: KeyringBackend
  /** How long one keychain operation may take before we stop waiting (default 5 s). */
  timeoutMs?: number
  /** Loads @napi-rs/keyring; tests pass a failing one to stand for a build without its binary. */
  loadKeyring?: () => Promise<KeyringModule>
  /**
   * Where keys go when no keychain answers (a headless server): a file encrypted with this
   * passphrase. Without a passphrase keys stay in memory, and the reason says how to give one.
   */
  keyFile?: { path: string; passphrase?: string }
}

/** How to keep keys across restarts without a keychain (said with every "keys are in memory" reason). */
export const KEY_FILE_HINT = 'To keep them across restarts without a keychain, start Switchboard with SWITCHBOARD_KEY_PASSPHRASE (or SWITCHBOARD_KEY_PASSPHRASE_FILE) set: keys are then kept in an encrypted key file in the data folder. Keys in <PROVIDER>_API_KEY variables (OPENAI_API_KEY…) are read too.'

/**
 * API keys: set, delete, has, last four, and read for the runtime only. Nothing here returns
 * a key except `readForRuntime`, which the bridge never exposes.
 */
export class Secrets {
  private memory = new MemoryBackend()
  private current: KeyringBackend
  private state: KeychainStatus
  private readonly listeners = new Set<(name: string) => void>()

  private constructor(
    backend: KeyringBackend | undefined,
    reason: string | undefined,
    private readonly timeoutMs: number,
    kind: 'keychain' | 'file' = 'keychain'
  ) {
    this.current = backend ?? this.memory
    this.state = backend ? { backend: kind, persistent: true, ...(reason ? { reason } : {}) } : { backend: 'memory', persistent: false, reason }
  }

  /** Probes the keychain once; if it does not answer, keys live in memory and `status` says why. */
  static async open(options: OpenSecretsOptions = {}): Promise<Secrets> {
    const timeoutMs = options.timeoutMs ?? KEYCHAIN_TIMEOUT_MS
    let backend: KeyringBackend
    try {
      backend =
        options.backend ??
        (await napiKeyringBackend(options.service ?? DEFAULT_SERVICE, options.loadKeyring).catch((error: unknown) => {
          throw new KeyringModuleMissing(error)
        }))
      await withTimeout(backend.get('switchboard:probe'), timeoutMs)
    } catch (error) {
      const reason = keychainReason(error)
      const keyFile = options.keyFile
      if (!keyFile?.passphrase) return new Secrets(undefined, keyFile ? `${reason} ${KEY_FILE_HINT}` : reason, timeoutMs)
      try {
        const file = await EncryptedKeyFile.open(keyFile.path, keyFile.passphrase)
        return new Secrets(file, `No system keychain answered: keys are kept in the encrypted key file ${keyFile.path}.`, timeoutMs, 'file')
      } catch (fileError) {
        const why = fileError instanceof KeyFileError ? fileError.message : `The key file ${keyFile.path} could not be opened.`
        return new Secrets(undefined, `${why} Keys you enter are kept in memory for this session only.`, timeoutMs)
      }
    }
    return new Secrets(backend, undefined, timeoutMs)
  }

  get status(): KeychainStatus {
    return { ...this.state }
  }

  /**
   * Calls `listener(name)` after every set or delete, whoever made it: readers that cache
   * keys (the provider service) drop theirs then. Returns the unsubscribe function.
   */
  onChange(listener: (name: string) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private changed(name: string): void {
    for (const listener of this.listeners) listener(name)
  }

  private account(name: string): string {
    if (!NAME.test(name)) throw new AppErrorException({ errorType: 'ValidationError', status: 400, message: 'A key name is 1–100 letters, digits, dots, colons, dashes or underscores.' })
    return `key:${name}`
  }

  /** Runs on the keychain; if it stops answering mid-session, moves to memory and reports it. */
  private async use<T>(op: (backend: KeyringBackend) => Promise<T>): Promise<T> {
    if (this.current === this.memory) return op(this.memory)
    try {
      return await withTimeout(op(this.current), this.timeoutMs)
    } catch (error) {
      this.state = { backend: 'memory', persistent: false, reason: keychainReason(error) }
      this.current = this.memory
      return op(this.memory)
    }
  }

  async set(name: string, value: string): Promise<KeyInfo> {
    const account = this.account(name)
    const key = value.trim()
    if (!key) throw new AppErrorException({ errorType: 'ValidationError', status: 400, message: 'The key is empty. Paste the whole key and try again.' })
    try {
      await this.use((b) => b.set(account, key))
    } finally {
      this.changed(name)
    }
    return describeKey(name, key)
  }

  async delete(name: string): Promise<KeyInfo> {
    const account = this.account(name)
    try {
      await this.use((b) => b.delete(account))
      // A key typed while the keychain was away lives in memory too.
      await this.memory.delete(account)
    } finally {
      this.changed(name)
    }
    return { name, hasKey: false }
  }

  async has(name: string): Promise<boolean> {
    return (await this.read(name)) !== undefined
  }

  async last4(name: string): Promise<string | undefined> {
    return describeKey(name, await this.read(name)).last4
  }

  async info(name: string): Promise<KeyInfo> {
    return describeKey(name, await this.read(name))
  }

  /** The key itself, for the provider runtime in the core. Never return it over the bridge. */
  async readForRuntime(name: string): Promise<string | undefined> {
    return this.read(name)
  }

  private async read(name: string): Promise<string | undefined> {
    const account = this.account(name)
    const value = (await this.use((b) => b.get(account))) ?? (await this.memory.get(account))
    return value ?? undefined
  }
}

/** What the renderer may learn about a key: whether there is one and, for a long one, its last four. */
export function describeKey(name: string, key: string | undefined): KeyInfo {
  if (key === undefined) return { name, hasKey: false }
  return key.length >= MIN_LENGTH_FOR_LAST4 ? { name, hasKey: true, last4: key.slice(-4) } : { name, hasKey: true }
}
