import { readFileSync } from 'node:fs'
import type { ProviderCredentials } from '../../types'

/**
 * Vertex AI credentials from the environment: the service-account JSON inline
 * (VERTEXAI_SERVICE_ACCOUNT_JSON) or as a file (GOOGLE_APPLICATION_CREDENTIALS), plus
 * project and location. An unreadable file is left out: the runtime then reports
 * InvalidVertexCredentials with its own message.
 */
export function vertexCredentialsFromEnv(env: NodeJS.ProcessEnv): Partial<ProviderCredentials> {
  const out: Partial<ProviderCredentials> = {}
  const inline = env['VERTEXAI_SERVICE_ACCOUNT_JSON']?.trim()
  const file = env['GOOGLE_APPLICATION_CREDENTIALS']?.trim()
  if (inline) out.serviceAccountJson = inline
  else if (file) {
    try {
      out.serviceAccountJson = readFileSync(file, 'utf8')
    } catch {
      // reported by readVertexCredentials as missing
    }
  }
  const project = env['VERTEXAI_PROJECT']?.trim() || env['GOOGLE_CLOUD_PROJECT']?.trim()
  const location = env['VERTEXAI_LOCATION']?.trim() || env['GOOGLE_CLOUD_LOCATION']?.trim()
  if (project) out.project = project
  if (location) out.location = location
  return out
}
