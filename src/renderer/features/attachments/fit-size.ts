/** The size an image is scaled to so its longest side is at most `maxEdge` (never enlarged). */
export function fitSize(width: number, height: number, maxEdge: number): { width: number; height: number; scaled: boolean } {
  const longest = Math.max(width, height)
  if (longest <= maxEdge) return { width, height, scaled: false }
  const ratio = maxEdge / longest
  return { width: Math.max(1, Math.round(width * ratio)), height: Math.max(1, Math.round(height * ratio)), scaled: true }
}

/** Bytes a base64 data URL decodes to (for the size limit, without decoding it). */
export function dataUrlBytes(dataUrl: string): number {
  const base64 = dataUrl.slice(dataUrl.indexOf(',') + 1)
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0
  return Math.floor((base64.length * 3) / 4) - padding
}
