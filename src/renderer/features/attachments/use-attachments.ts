import { useCallback, useState } from 'react'
import type { Attachment } from '../../../shared/bridge/procedures/files'
import { bridge } from '../../stores/app-store'
import { blobToBase64 } from '../voice/audio-data'

export interface PendingAttachment {
  key: string
  name: string
  status: 'uploading' | 'ready' | 'error'
  attachment?: Attachment
  error?: string
}

let counter = 0

/** Files attached in the composer: uploaded (stored and extracted) by the core as soon as they are added. */
export function useAttachments() {
  const [items, setItems] = useState<PendingAttachment[]>([])

  const add = useCallback(async (files: File[]) => {
    await Promise.all(
      files.map(async (file) => {
        const key = `a${++counter}`
        setItems((list) => [...list, { key, name: file.name, status: 'uploading' }])
        const patch = (p: Partial<PendingAttachment>) => setItems((list) => list.map((i) => (i.key === key ? { ...i, ...p } : i)))
        try {
          const result = await bridge().call('files.upload', { name: file.name, ...(file.type ? { mimeType: file.type } : {}), dataBase64: await blobToBase64(file) })
          if (result.ok) patch({ status: 'ready', attachment: result.value })
          else patch({ status: 'error', error: result.error.message })
        } catch (e) {
          patch({ status: 'error', error: `Upload failed: ${e instanceof Error ? e.message : String(e)}` })
        }
      })
    )
  }, [])

  const remove = useCallback((key: string) => setItems((list) => list.filter((i) => i.key !== key)), [])
  const clear = useCallback(() => setItems([]), [])
  const ready = items.filter((i) => i.status === 'ready' && i.attachment).map((i) => i.attachment!)
  return {
    items,
    add,
    remove,
    clear,
    fileIds: ready.map((a) => a.file.id),
    tokens: ready.reduce((sum, a) => sum + a.tokens, 0),
    uploading: items.some((i) => i.status === 'uploading')
  }
}
