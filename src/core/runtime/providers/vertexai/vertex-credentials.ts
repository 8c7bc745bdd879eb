import type { AppError } from '../../../../shared/errors/app-error'
import { runtimeError, throwRuntimeError } from '../../runtime-error'
import type { ProviderCredentials } from '../../types'

export interface VertexServiceAccount {
  client_email: string
  private_key: string
  project_id?: string
}

export interface VertexTarget {
  account: VertexServiceAccount
  project: string
  location: string
}

/** Gemini 3 previews are served from the global endpoint only; it also serves every 2.x model. */
export const VERTEX_DEFAULT_LOCATION = 'global'

const invalid = (provider: string, why: string): never =>
  throwRuntimeError('InvalidVertexCredentials', `The Vertex AI service account ${why}.`, provider)

/**
 * Reads the service-account JSON (InvalidVertexCredentials when missing or malformed).
 * The message names what is wrong, never any of the JSON's values.
 */
export function readVertexCredentials(credentials: ProviderCredentials, provider = 'vertexai'): VertexTarget {
  const raw = credentials.serviceAccountJson?.trim() || credentials.apiKey?.trim()
  if (!raw) return invalid(provider, 'JSON is missing')
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    return invalid(provider, 'JSON could not be parsed')
  }
  const account = parsed as Partial<VertexServiceAccount> | null
  if (!account || typeof account !== 'object') return invalid(provider, 'JSON is not an object')
  if (typeof account.client_email !== 'string' || !account.client_email) return invalid(provider, 'JSON has no client_email')
  if (typeof account.private_key !== 'string' || !account.private_key.includes('PRIVATE KEY')) return invalid(provider, 'JSON has no valid private_key')
  const project = credentials.project?.trim() || account.project_id
  if (!project) return invalid(provider, 'JSON has no project_id and no project is set')
  return {
    account: { client_email: account.client_email, private_key: account.private_key, ...(account.project_id ? { project_id: account.project_id } : {}) },
    project,
    location: credentials.location?.trim() || VERTEX_DEFAULT_LOCATION
  }
}

/**
 * A key that parses but cannot sign, or that Google's token endpoint refuses, is also a
 * credentials problem (InvalidVertexCredentials), not a provider error. The message is ours:
 * the library's text may quote the assertion.
 */
export function vertexCredentialError(error: unknown, provider: string): AppError | undefined {
  const e = (error ?? {}) as { message?: string; response?: { data?: { error?: string } } }
  const text = `${e.message ?? ''} ${e.response?.data?.error ?? ''}`
  if (/invalid_grant|invalid_client|unauthorized_client|DECODER routines|unsupported key|PEM|private key|Invalid JWT/i.test(text)) {
    return runtimeError('InvalidVertexCredentials', 'Google refused the Vertex AI service account (check the key, the account and that it is enabled).', provider)
  }
  return undefined
}
