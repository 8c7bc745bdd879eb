/** The centred square of a w×h picture (product.md §9: avatar crop, centred square). */
export function centredSquare(width: number, height: number): { sx: number; sy: number; size: number } {
  const size = Math.min(width, height)
  return { sx: Math.floor((width - size) / 2), sy: Math.floor((height - size) / 2), size }
}

export const AVATAR_SIZE = 128

/** Crops a picture to its centred square and encodes it as webp (the default type) at 128 px. */
export async function cropAvatar(file: Blob, type = 'image/webp'): Promise<string> {
  const bitmap = await createImageBitmap(file)
  const { sx, sy, size } = centredSquare(bitmap.width, bitmap.height)
  const canvas = document.createElement('canvas')
  canvas.width = AVATAR_SIZE
  canvas.height = AVATAR_SIZE
  const context = canvas.getContext('2d')
  if (!context) throw new Error('This browser cannot draw pictures (no 2D canvas).')
  context.drawImage(bitmap, sx, sy, size, size, 0, 0, AVATAR_SIZE, AVATAR_SIZE)
  bitmap.close()
  return canvas.toDataURL(type, 0.9)
}

export const isPictureAvatar = (avatar: string | undefined): avatar is string => Boolean(avatar?.startsWith('data:image/'))
