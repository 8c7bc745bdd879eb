import { useEffect, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { X } from 'lucide-react'
import { fileIdOfRef } from '../../../shared/images/image-task'
import { imageActions, useImages } from './images-store'

const ACCEPT = 'image/png,image/jpeg,image/webp,image/gif'

function readAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => resolve(String(reader.result))
    reader.onerror = () => reject(reader.error ?? new Error('read failed'))
    reader.readAsDataURL(file)
  })
}

/** A reference image: stored ones (sbfile:) are loaded through the bridge for the thumbnail. */
function Thumb({ value, onRemove }: { value: string; onRemove(): void }) {
  const { t } = useTranslation()
  const fileId = fileIdOfRef(value)
  const loaded = useImages((s) => (fileId ? s.files[fileId] : undefined))
  useEffect(() => {
    if (fileId && !loaded) void imageActions.loadFile(fileId)
  }, [fileId, loaded])
  const src = fileId ? loaded : value
  return (
    <div className="relative h-16 w-16 overflow-hidden rounded-md border border-zinc-300 dark:border-zinc-700" data-testid="reference-image">
      {src && <img src={src} alt="" className="h-full w-full object-cover" />}
      <button type="button" onClick={onRemove} className="absolute top-0 right-0 rounded-bl bg-black/60 px-1 text-xs text-white" aria-label={t('images.removeReference')}>
        <X aria-hidden className="size-3.5" />
      </button>
    </div>
  )
}

/** Reference images up to the model's limit: imageUrl holds one, imageUrls a list. */
export function ReferenceImages({ name, max }: { name: 'imageUrl' | 'imageUrls'; max: number }) {
  const { t } = useTranslation()
  const value = useImages((s) => s.values[name])
  const input = useRef<HTMLInputElement>(null)
  const list = name === 'imageUrl' ? (typeof value === 'string' && value ? [value] : []) : Array.isArray(value) ? (value as string[]) : []
  const set = (next: string[]) => imageActions.setValue(name, name === 'imageUrl' ? (next[0] ?? null) : next)
  return (
    <div className="flex flex-wrap items-center gap-2">
      {list.map((v, i) => (
        <Thumb key={`${i}-${v.slice(0, 64)}`} value={v} onRemove={() => set(list.filter((_, j) => j !== i))} />
      ))}
      {list.length < max && (
        <button type="button" onClick={() => input.current?.click()} className="h-16 w-16 rounded-md border border-dashed border-zinc-400 text-xs text-zinc-500" data-testid={`add-${name}`}>
          + {t('images.addReference')}
        </button>
      )}
      <span className="text-xs text-zinc-500">{t('images.referenceLimit', { count: list.length, max })}</span>
      <input
        ref={input}
        type="file"
        accept={ACCEPT}
        multiple={name === 'imageUrls'}
        hidden
        data-testid={`file-${name}`}
        onChange={async (e) => {
          const files = [...(e.target.files ?? [])].slice(0, Math.max(0, max - list.length))
          const urls = await Promise.all(files.map(readAsDataUrl))
          set([...list, ...urls])
          e.target.value = ''
        }}
      />
    </div>
  )
}
