import type * as NapiKeyring from '@napi-rs/keyring'
import type { KeyringBackend } from './keyring-backend'

export type KeyringModule = typeof NapiKeyring

/**
 * Loads @napi-rs/keyring. It is a native addon with one binary per platform and architecture;
 * imported at the top of the app, a build whose binary is missing crashed at launch before the
 * in-memory fallback could run. Loaded here, inside `Secrets.open`, a failure is one more reason
 * the keychain is unavailable.
 */
export const loadKeyringModule = (): Promise<KeyringModule> => import('@napi-rs/keyring')

/**
 * The OS keychain through @napi-rs/keyring: Keychain on macOS, Credential Manager on Windows,
 * and on Linux pinned to the Secret Service (GNOME Keyring, KWallet). Pinned because the
 * library's fallback, the kernel keyring, forgets everything at logout: a user would lose
 * their keys without being told.
 */
export async function napiKeyringBackend(service: string, load: () => Promise<KeyringModule> = loadKeyringModule): Promise<KeyringBackend> {
  const { AsyncEntry } = await load()
  const entry = (account: string) => new AsyncEntry(service, account, { linux: { store: 'secret-service' } })
  return {
    get: (account) => entry(account).getPassword(),
    set: (account, value) => entry(account).setPassword(value),
    delete: (account) => entry(account).deleteCredential()
  }
}
