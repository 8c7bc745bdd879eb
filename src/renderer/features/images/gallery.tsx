import * as Dialog from '@radix-ui/react-dialog'
import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { X } from 'lucide-react'
import type { ImageGeneration } from '../../../shared/data/image-generation'
import { describeParameters, groupByPrompt } from '../../../shared/images/gallery'
import { imageActions, useImages, withResultSeed } from './images-store'

const button = 'rounded-md border border-zinc-300 px-2 py-0.5 text-xs hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800'

/** Decoded by hand: the CSP's connect-src does not allow fetching data: URLs. */
function dataUrlToBlob(dataUrl: string): Blob {
  const [head, data = ''] = dataUrl.split(',', 2)
  const type = /^data:([^;,]+)/.exec(head ?? '')?.[1] ?? 'image/png'
  const binary = atob(data)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return new Blob([bytes], { type })
}

async function copyImage(dataUrl: string): Promise<void> {
  const blob = dataUrlToBlob(dataUrl)
  // Clipboards take PNG everywhere; other formats go as the data URL text.
  if (blob.type === 'image/png' && typeof ClipboardItem !== 'undefined') await navigator.clipboard.write([new ClipboardItem({ 'image/png': blob })])
  else await navigator.clipboard.writeText(dataUrl)
}

const fileName = (g: ImageGeneration, dataUrl: string) => {
  const ext = /^data:image\/(\w+)/.exec(dataUrl)?.[1]?.replace('jpeg', 'jpg') ?? 'png'
  const slug = g.prompt.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'image'
  return `${slug}-${g.id.slice(0, 8)}.${ext}`
}

function ImageCard({ generation }: { generation: ImageGeneration }) {
  const { t } = useTranslation()
  const result = generation.results[0]
  const src = useImages((s) => (result ? s.files[result.fileId] : undefined))
  const [note, setNote] = useState<string>()
  const [confirming, setConfirming] = useState(false)
  const [zoomed, setZoomed] = useState(false)
  useEffect(() => {
    if (result && !src) void imageActions.loadFile(result.fileId)
  }, [result, src])
  const flash = (text: string) => {
    setNote(text)
    setTimeout(() => setNote(undefined), 1500)
  }
  const cost = generation.cost ? `${generation.cost.currency === 'CNY' ? '¥' : '$'}${generation.cost.total.toFixed(3)}` : ''
  return (
    <figure className="flex w-56 flex-col overflow-hidden rounded-lg border border-zinc-200 dark:border-zinc-800" data-testid="gallery-item" data-status={generation.status}>
      {generation.status === 'Success' && result ? (
        <Dialog.Root open={zoomed} onOpenChange={setZoomed}>
          <Dialog.Trigger asChild>
            <button className="block aspect-square w-full bg-zinc-100 dark:bg-zinc-900" aria-label={t('images.zoom')} data-testid="gallery-zoom">
              {src && <img src={src} alt={generation.prompt} className="h-full w-full object-contain" data-testid="gallery-image" />}
            </button>
          </Dialog.Trigger>
          <Dialog.Portal>
            <Dialog.Overlay className="fixed inset-0 z-40 bg-black/85 backdrop-blur-sm" data-testid="zoom-overlay" />
            {/* The image at its own pixel size, shrunk only to fit the window; a click beside it closes. */}
            <Dialog.Content
              className="fixed inset-0 z-50 flex flex-col items-center justify-center gap-3 p-6 outline-none"
              data-testid="zoom-dialog"
              onClick={(e) => e.target === e.currentTarget && setZoomed(false)}
            >
              <Dialog.Title className="max-w-3xl truncate text-sm text-white">{generation.prompt}</Dialog.Title>
              <Dialog.Description className="text-xs text-zinc-300">
                {t('polish.imageSize', { width: result.width, height: result.height })} · {generation.providerId} / {generation.modelId}
              </Dialog.Description>
              {src && (
                <img
                  src={src}
                  alt={generation.prompt}
                  width={result.width || undefined}
                  height={result.height || undefined}
                  className="h-auto max-h-[calc(100vh-9rem)] w-auto max-w-full rounded object-contain shadow-2xl"
                  data-testid="zoom-image"
                />
              )}
              <Dialog.Close className="flex items-center gap-1 rounded-md bg-white/90 px-3 py-1 text-sm text-black hover:bg-white">
                <X aria-hidden className="size-4" />
                {t('images.close')}
              </Dialog.Close>
            </Dialog.Content>
          </Dialog.Portal>
        </Dialog.Root>
      ) : (
        <div className="flex aspect-square w-full items-center justify-center bg-red-50 p-3 text-center text-xs text-red-700 dark:bg-red-950 dark:text-red-300" data-testid="gallery-error">
          {generation.error?.message ?? t(`images.status.${generation.status}`)}
        </div>
      )}
      <figcaption className="flex flex-col gap-1 p-2 text-xs">
        <span className="truncate text-zinc-500" title={`${generation.providerId} / ${generation.modelId}`}>
          {generation.modelId}
          {result ? ` · ${result.width}×${result.height}` : ''}
          {cost ? ` · ${cost}` : ''}
        </span>
        <span className="truncate text-zinc-500" data-testid="gallery-params">
          {describeParameters(withResultSeed(generation))}
        </span>
        <span className="flex flex-wrap gap-1">
          {src && (
            <>
              <button className={button} onClick={() => void copyImage(src).then(() => flash(t('images.copied')), () => flash(t('images.copyFailed')))} data-testid="gallery-copy">
                {t('images.copy')}
              </button>
              <a className={button} href={src} download={fileName(generation, src)} data-testid="gallery-save">
                {t('images.saveAs')}
              </a>
              <button className={button} onClick={() => flash(imageActions.useAsReference(result!.fileId) ? t('images.addedReference') : t('images.noReferences'))} data-testid="gallery-reference">
                {t('images.useAsReference')}
              </button>
            </>
          )}
          <button className={button} onClick={() => void imageActions.reuse(generation)} data-testid="gallery-reuse">
            {t('images.reuse')}
          </button>
          {confirming ? (
            <button className={`${button} border-red-400 text-red-600`} onClick={() => void imageActions.remove(generation.id)} data-testid="gallery-delete-confirm">
              {t('images.confirmDelete')}
            </button>
          ) : (
            <button className={button} onClick={() => setConfirming(true)} data-testid="gallery-delete">
              {t('images.delete')}
            </button>
          )}
        </span>
        {note && <span className="text-emerald-600 dark:text-emerald-400" role="status">{note}</span>}
      </figcaption>
    </figure>
  )
}

/** Every stored generation, grouped by prompt, newest first. */
export function Gallery() {
  const { t } = useTranslation()
  const gallery = useImages((s) => s.gallery)
  const groups = groupByPrompt(gallery.filter((g) => g.status === 'Success' || g.status === 'Error'))
  if (groups.length === 0) return <p className="text-sm text-zinc-500" data-testid="gallery-empty">{t('images.galleryEmpty')}</p>
  return (
    <div className="flex flex-col gap-6" data-testid="gallery">
      {groups.map((group) => (
        <section key={group.prompt} data-testid="gallery-group">
          <h3 className="mb-2 line-clamp-2 text-sm font-medium" title={group.prompt}>
            {group.prompt}
          </h3>
          <div className="flex flex-wrap gap-3">
            {group.generations.map((g) => (
              <ImageCard key={g.id} generation={g} />
            ))}
          </div>
        </section>
      ))}
    </div>
  )
}
