import { readFileSync } from 'node:fs'
import { nativeSpec } from '../../provider-spec'
import { googleErrorRules } from '../google/google-error-rule'
import { createVertexRuntime } from './vertex-runtime'

/**
 * Vertex AI: a service account instead of an API key. From the environment, the JSON inline
 * (VERTEXAI_SERVICE_ACCOUNT_JSON) or as a file (GOOGLE_APPLICATION_CREDENTIALS).
 */
export const vertexaiSpec = nativeSpec({
  id: 'vertexai',
  factory: createVertexRuntime,
  usesApiKey: false,
  fields: [
    { name: 'serviceAccountJson', secret: true, required: true, env: ['VERTEXAI_SERVICE_ACCOUNT_JSON'] },
    { name: 'project', secret: false, required: false, env: ['VERTEXAI_PROJECT', 'GOOGLE_CLOUD_PROJECT'] },
    { name: 'location', secret: false, required: false, env: ['VERTEXAI_LOCATION', 'GOOGLE_CLOUD_LOCATION'] }
  ],
  envCredentials(env) {
    const file = env['GOOGLE_APPLICATION_CREDENTIALS']?.trim()
    if (env['VERTEXAI_SERVICE_ACCOUNT_JSON']?.trim() || !file) return {}
    try {
      return { serviceAccountJson: readFileSync(file, 'utf8') }
    } catch {
      // An unreadable file is left out: the runtime then reports InvalidVertexCredentials with its own message.
      return {}
    }
  },
  ...googleErrorRules
})
