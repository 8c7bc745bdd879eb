import { AsyncEntry } from '@napi-rs/keyring'
import type { KeyringBackend } from './keyring-backend'

/**
 * The OS keychain through @napi-rs/keyring: Keychain on macOS, Credential Manager on Windows,
 * and on Linux pinned to the Secret Service (GNOME Keyring, KWallet). Pinned because the
 * library's fallback, the kernel keyring, forgets everything at logout: a user would lose
 * their keys without being told.
 */
export function napiKeyringBackend(service: string): KeyringBackend {
  const entry = (account: string) => new AsyncEntry(service, account, { linux: { store: 'secret-service' } })
  return {
    get: (account) => entry(account).getPassword(),
    set: (account, value) => entry(account).setPassword(value),
    delete: (account) => entry(account).deleteCredential()
  }
}
