export { Secrets, DEFAULT_SERVICE, describeKey, keychainReason, type OpenSecretsOptions } from './secrets'
export { MemoryBackend, type KeyringBackend } from './keyring-backend'
export { napiKeyringBackend } from './napi-keyring-backend'
