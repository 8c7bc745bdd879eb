import type { ImageLimitInfo } from '../../../shared/bridge/procedures/files'
import { dataUrlBytes, fitSize } from './fit-size'

const readAsDataUrl = (blob: Blob) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => resolve(String(reader.result))
    reader.onerror = () => reject(reader.error ?? new Error('could not read the image'))
    reader.readAsDataURL(blob)
  })

export interface FittedImage {
  dataUrl: string
  width: number
  height: number
  resized: boolean
}

/**
 * An image within the provider's limit. Done here, with a canvas, because the browser decodes
 * every format we accept for free; the core would need a pure-JS JPEG/PNG/WebP codec. An image
 * already within the limit is sent untouched (no re-encoding loss); a bigger one is scaled to the
 * longest edge and re-encoded (PNG stays PNG for transparency, the rest become JPEG), stepping the
 * scale down until it also fits the byte limit. GIFs keep their animation only when untouched.
 */
export async function fitImage(file: Blob, limit: ImageLimitInfo): Promise<FittedImage> {
  const bitmap = await createImageBitmap(file)
  try {
    const original = await readAsDataUrl(file)
    const first = fitSize(bitmap.width, bitmap.height, limit.maxEdge)
    if (!first.scaled && dataUrlBytes(original) <= limit.maxBytes) return { dataUrl: original, width: bitmap.width, height: bitmap.height, resized: false }
    const type = file.type === 'image/png' ? 'image/png' : 'image/jpeg'
    let edge = Math.min(limit.maxEdge, Math.max(bitmap.width, bitmap.height))
    for (let attempt = 0; attempt < 8; attempt++) {
      const size = fitSize(bitmap.width, bitmap.height, edge)
      const canvas = document.createElement('canvas')
      canvas.width = size.width
      canvas.height = size.height
      const ctx = canvas.getContext('2d')
      if (!ctx) throw new Error('this window cannot draw images')
      ctx.drawImage(bitmap, 0, 0, size.width, size.height)
      const dataUrl = canvas.toDataURL(type, 0.85)
      if (dataUrlBytes(dataUrl) <= limit.maxBytes) return { dataUrl, width: size.width, height: size.height, resized: true }
      edge = Math.floor(edge * 0.75)
    }
    throw new Error('the image is still over the size limit after scaling it down')
  } finally {
    bitmap.close()
  }
}
