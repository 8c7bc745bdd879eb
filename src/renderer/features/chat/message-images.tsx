import { useEffect, useState } from 'react'
import type { ContentPart } from '../../../shared/data/message'
import { imageActions } from '../images/images-store'

/** An image a reply produced, kept as a file in the data folder: loaded once through the bridge. */
function StoredImage({ part }: { part: Extract<ContentPart, { type: 'image_file' }> }) {
  const [src, setSrc] = useState<string>()
  useEffect(() => {
    let alive = true
    void imageActions.loadFile(part.fileId).then((url) => alive && setSrc(url))
    return () => {
      alive = false
    }
  }, [part.fileId])
  if (!src) return <div className="mt-2 h-32 w-32 animate-pulse rounded-lg bg-zinc-200 dark:bg-zinc-800" aria-busy="true" />
  return <img src={src} width={part.width} height={part.height} alt="" data-testid="message-image" className="mt-2 h-auto max-h-64 w-auto rounded-lg" />
}

/** The images of a message: attached ones (data URLs) and ones a reply produced (files). */
export function MessageImages({ content }: { content: readonly ContentPart[] }) {
  return (
    <>
      {content.map((part, i) => {
        if (part.type === 'image_url') return <img key={i} src={part.imageUrl.url} alt="" data-testid="message-image" className="mt-2 max-h-64 rounded-lg" />
        if (part.type === 'image_file') return <StoredImage key={part.fileId} part={part} />
        return null
      })}
    </>
  )
}
