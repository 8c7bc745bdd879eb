export { Secrets, DEFAULT_SERVICE, keychainReason, type OpenSecretsOptions } from './secrets'
export { MemoryBackend, type KeyringBackend } from './keyring-backend'
export { napiKeyringBackend } from './napi-keyring-backend'
