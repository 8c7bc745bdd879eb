/** The largest file we accept (the bridge carries it base64-encoded, ≈27 MB on the wire). */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024

/**
 * The most extracted text one file may add to a conversation. Above it the text is cut and the
 * attachment says so: a 300-page PDF would otherwise fill most models' context on its own.
 */
export const MAX_CONTEXT_TOKENS = 32_000
