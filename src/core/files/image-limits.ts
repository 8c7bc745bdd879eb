/**
 * How large an image each provider family accepts inline. Over it the renderer scales the
 * image down (a canvas has every decoder for free; the core would need a JPEG/PNG/WebP codec)
 * before it is sent, so a phone photo does not fail the whole message.
 */
export interface ImageLimit {
  /** Longest side in pixels. */
  maxEdge: number
  /** Largest encoded size in bytes. */
  maxBytes: number
}

const MB = 1024 * 1024

// Anthropic documents 8000 px and 5 MB but scales anything over 1568 px down on its side
// (slower, same tokens); OpenAI scales to fit 2048 px; Gemini takes 20 MB of inline data.
const LIMITS: Record<string, ImageLimit> = {
  anthropic: { maxEdge: 1568, maxBytes: 5 * MB },
  bedrock: { maxEdge: 1568, maxBytes: 3.75 * MB },
  google: { maxEdge: 3072, maxBytes: 20 * MB },
  vertexai: { maxEdge: 3072, maxBytes: 20 * MB },
  ollama: { maxEdge: 1344, maxBytes: 20 * MB }
}

export const DEFAULT_IMAGE_LIMIT: ImageLimit = { maxEdge: 2048, maxBytes: 20 * MB }

export const imageLimitFor = (providerId: string | undefined): ImageLimit => (providerId && LIMITS[providerId]) || DEFAULT_IMAGE_LIMIT
