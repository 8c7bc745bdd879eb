import type { ProviderCredentials } from '../../types'

/** Cloudflare's account id from CLOUDFLARE_ACCOUNT_ID (the base URL alternative of providers.md §5). */
export function cloudflareCredentialsFromEnv(env: NodeJS.ProcessEnv): Partial<ProviderCredentials> {
  const accountId = env['CLOUDFLARE_ACCOUNT_ID']?.trim()
  return accountId ? { accountId } : {}
}
