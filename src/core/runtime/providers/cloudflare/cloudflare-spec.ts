import { nativeSpec } from '../../provider-spec'
import { createCloudflareRuntime } from './cloudflare-runtime'

/** Cloudflare Workers AI: a key plus a base URL or an account id (CLOUDFLARE_ACCOUNT_ID). */
export const cloudflareSpec = nativeSpec({
  id: 'cloudflare',
  factory: createCloudflareRuntime,
  fields: [{ name: 'accountId', secret: false, required: false, env: ['CLOUDFLARE_ACCOUNT_ID'] }]
})
