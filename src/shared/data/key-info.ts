/** All the renderer may learn about a stored API key. */
export interface KeyInfo {
  name: string
  hasKey: boolean
  /** The last four characters, for recognising which key it is (absent for keys too short to hide the rest). */
  last4?: string
}

/** Where keys are kept. `persistent: false` means in memory for this session only: the UI says so, with `reason`. */
export interface KeychainStatus {
  /** `file`: no keychain here, keys are kept in the passphrase-encrypted key file (headless servers). */
  backend: 'keychain' | 'file' | 'memory'
  persistent: boolean
  /** Why the keychain is not used, and the fix. */
  reason?: string
}
