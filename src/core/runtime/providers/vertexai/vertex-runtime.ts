import type { GoogleGenAI } from '@google/genai'
import { loadGoogleGenAI } from '../../sdk/load-sdk'
import type { CallOptions, ProviderFactory } from '../../types'
import { createGeminiWireRuntime, googleHttpOptions } from '../google/google-runtime'
import { readVertexCredentials, vertexCredentialError } from './vertex-credentials'

const SCOPES = ['https://www.googleapis.com/auth/cloud-platform']

/** Vertex AI: the Gemini wire with service-account credentials (InvalidVertexCredentials). */
export const createVertexRuntime: ProviderFactory = (credentials, context) => {
  const provider = context.providerId
  const { account, project, location } = readVertexCredentials(credentials, provider)
  const baseURL = credentials.baseURL?.trim() || undefined
  // One client (and so one cached access token) unless a call brings its own fetch or headers.
  let shared: Promise<GoogleGenAI> | undefined
  const makeClient = async (options?: CallOptions): Promise<GoogleGenAI> =>
    new (await loadGoogleGenAI()).GoogleGenAI({
      vertexai: true,
      project,
      location,
      googleAuthOptions: {
        credentials: { client_email: account.client_email, private_key: account.private_key },
        scopes: SCOPES,
        // The token exchange goes through the caller's fetch too (proxies, tests).
        ...(options?.fetch ? { clientOptions: { transporterOptions: { fetchImplementation: options.fetch } } } : {})
      },
      httpOptions: googleHttpOptions(baseURL, options)
    })
  const runtime = createGeminiWireRuntime({
    provider,
    secrets: [account.private_key, credentials.serviceAccountJson],
    ...(baseURL ? { baseURL } : {}),
    client: (options) => (options?.fetch || options?.headers ? makeClient(options) : (shared ??= makeClient())),
    refineError: (error) => vertexCredentialError(error, provider)
  })
  // The Vertex model garden is not listed (catalogue: showModelFetcher false).
  const { models: _models, ...rest } = runtime
  return rest
}
