import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { envCredentialsOf } from '../../../src/core/runtime/provider-specs'

// The CLI reads these through the providers' specs (one definition per provider).
const bedrockCredentialsFromEnv = (env: NodeJS.ProcessEnv) => envCredentialsOf('bedrock', env)
const vertexCredentialsFromEnv = (env: NodeJS.ProcessEnv) => envCredentialsOf('vertexai', env)
const cloudflareCredentialsFromEnv = (env: NodeJS.ProcessEnv) => envCredentialsOf('cloudflare', env)

describe('native credentials from the environment', () => {
  it('bedrock: BEDROCK_ variables win over the AWS ones', () => {
    expect(bedrockCredentialsFromEnv({ AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 's', AWS_REGION: 'eu-west-1', BEDROCK_REGION: 'us-west-2' })).toEqual({
      accessKeyId: 'a',
      secretAccessKey: 's',
      region: 'us-west-2'
    })
    expect(bedrockCredentialsFromEnv({})).toEqual({})
  })

  it('vertex: inline JSON, else the GOOGLE_APPLICATION_CREDENTIALS file, plus project and location', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-vertex-'))
    const file = join(dir, 'sa.json')
    writeFileSync(file, '{"client_email":"x"}')
    expect(vertexCredentialsFromEnv({ GOOGLE_APPLICATION_CREDENTIALS: file, GOOGLE_CLOUD_PROJECT: 'p', VERTEXAI_LOCATION: 'us-central1' })).toEqual({
      serviceAccountJson: '{"client_email":"x"}',
      project: 'p',
      location: 'us-central1'
    })
    expect(vertexCredentialsFromEnv({ VERTEXAI_SERVICE_ACCOUNT_JSON: '{}', GOOGLE_APPLICATION_CREDENTIALS: file }).serviceAccountJson).toBe('{}')
    expect(vertexCredentialsFromEnv({ GOOGLE_APPLICATION_CREDENTIALS: join(dir, 'missing.json') })).toEqual({})
  })

  it('cloudflare: account id', () => {
    expect(cloudflareCredentialsFromEnv({ CLOUDFLARE_ACCOUNT_ID: 'acc' })).toEqual({ accountId: 'acc' })
  })

  it('azure: api-version; a provider without fields reads nothing', () => {
    expect(envCredentialsOf('azure', { AZURE_API_VERSION: '2024-10-21' })).toEqual({ apiVersion: '2024-10-21' })
    expect(envCredentialsOf('openai', { AWS_ACCESS_KEY_ID: 'a' })).toEqual({})
    expect(envCredentialsOf('my-custom-endpoint', { AWS_ACCESS_KEY_ID: 'a' })).toEqual({})
  })
})
