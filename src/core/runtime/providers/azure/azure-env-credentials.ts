import type { ProviderCredentials } from '../../types'

/** Azure's api-version from AZURE_API_VERSION (the runtime has a recent default). */
export function azureCredentialsFromEnv(env: NodeJS.ProcessEnv): Partial<ProviderCredentials> {
  const apiVersion = env['AZURE_API_VERSION']?.trim()
  return apiVersion ? { apiVersion } : {}
}
