/**
 * Base64 audio from the core as a Blob the page can play. Decoded by hand: the page's CSP keeps
 * `connect-src` to the app itself, so fetching a data: URL is refused.
 */
export function base64ToBlob(base64: string, mimeType: string): Blob {
  const binary = atob(base64)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return new Blob([bytes], { type: mimeType })
}

/** A Blob as base64 without the data URL prefix, for the bridge. */
export function blobToBase64(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''))
    reader.onerror = () => reject(reader.error ?? new Error('could not read the recording'))
    reader.readAsDataURL(blob)
  })
}
