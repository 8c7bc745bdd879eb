/** The few operations we need from an OS keychain; tests inject failing ones to exercise the fallback. */
export interface KeyringBackend {
  get(account: string): Promise<string | null>
  set(account: string, value: string): Promise<void>
  delete(account: string): Promise<boolean>
}

/** Keys held for this session only, when no keychain answers. */
export class MemoryBackend implements KeyringBackend {
  private readonly values = new Map<string, string>()
  async get(account: string) {
    return this.values.get(account) ?? null
  }
  async set(account: string, value: string) {
    this.values.set(account, value)
  }
  async delete(account: string) {
    return this.values.delete(account)
  }
}
