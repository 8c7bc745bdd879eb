import { z } from 'zod'

/**
 * The one rule for a provider endpoint (base URL or proxy) wherever it comes from: Settings,
 * the data API, or an imported file. Keys are sent there, so only http(s) URLs are allowed
 * (never file:, javascript:, data: …).
 */
export const ENDPOINT_URL_ERROR = 'must be an http(s) URL, e.g. https://api.example.com/v1'
export const endpointUrlSchema = z.url({ protocol: /^https?$/, error: ENDPOINT_URL_ERROR }).max(2000)
