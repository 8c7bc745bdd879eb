import { useRef, useState, type ClipboardEvent, type DragEvent, type KeyboardEvent } from 'react'
import { useTranslation } from 'react-i18next'

export interface ComposerProps {
  streaming: boolean
  /** The model reads images (vision); otherwise pasted images are refused with a message. */
  vision: boolean
  contextWindow?: number
  /** Tokens of the history that would be sent with the next message. */
  historyTokens: number
  disabled?: boolean
  onSend(text: string, images: { dataUrl: string }[]): void
  onStop(): void
}

const MAX_IMAGE_BYTES = 20 * 1024 * 1024

/** ≈4 characters a token: good enough to warn before sending, never used for billing. */
export const estimateTextTokens = (text: string) => Math.ceil(text.length / 4)

export function Composer({ streaming, vision, contextWindow, historyTokens, disabled, onSend, onStop }: ComposerProps) {
  const { t } = useTranslation()
  const [text, setText] = useState('')
  const [images, setImages] = useState<{ dataUrl: string; name: string }[]>([])
  const [notice, setNotice] = useState<string>()
  const [confirmOver, setConfirmOver] = useState(false)
  const ref = useRef<HTMLTextAreaElement>(null)
  const tokens = historyTokens + estimateTextTokens(text) + images.length * 800
  const over = contextWindow !== undefined && tokens > contextWindow

  const addFiles = async (files: File[]) => {
    const pictures = files.filter((f) => f.type.startsWith('image/'))
    if (pictures.length === 0) return
    if (!vision) {
      setNotice(t('chat.noVision'))
      return
    }
    for (const file of pictures) {
      if (file.size > MAX_IMAGE_BYTES) {
        setNotice(t('chat.imageTooLarge', { name: file.name }))
        continue
      }
      const dataUrl = await new Promise<string>((resolve, reject) => {
        const reader = new FileReader()
        reader.onload = () => resolve(String(reader.result))
        reader.onerror = () => reject(reader.error)
        reader.readAsDataURL(file)
      })
      setImages((list) => [...list, { dataUrl, name: file.name }])
    }
  }

  const send = () => {
    if (disabled || streaming) return
    if (!text.trim() && images.length === 0) return
    if (over && !confirmOver) {
      setConfirmOver(true)
      return
    }
    onSend(text, images.map(({ dataUrl }) => ({ dataUrl })))
    setText('')
    setImages([])
    setNotice(undefined)
    setConfirmOver(false)
  }

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault()
      send()
    } else if (event.key === 'Escape' && streaming) {
      event.preventDefault()
      onStop()
    }
  }

  return (
    <div
      className="border-t border-zinc-200 p-4 dark:border-zinc-800"
      onDragOver={(e: DragEvent) => e.preventDefault()}
      onDrop={(e: DragEvent) => {
        e.preventDefault()
        void addFiles([...e.dataTransfer.files])
      }}
    >
      <div className="mx-auto max-w-4xl">
        {images.length > 0 && (
          <div className="mb-2 flex flex-wrap gap-2" data-testid="composer-images">
            {images.map((img, i) => (
              <div key={i} className="relative">
                <img src={img.dataUrl} alt={img.name} className="size-16 rounded-md object-cover" />
                <button
                  aria-label={t('chat.removeImage')}
                  onClick={() => setImages((list) => list.filter((_, j) => j !== i))}
                  className="absolute -top-1.5 -right-1.5 grid size-5 place-items-center rounded-full bg-zinc-800 text-xs text-white"
                >
                  ×
                </button>
              </div>
            ))}
          </div>
        )}
        <div className="flex items-end gap-2 rounded-xl border border-zinc-300 bg-white p-2 focus-within:border-accent dark:border-zinc-700 dark:bg-zinc-900">
          <textarea
            ref={ref}
            value={text}
            rows={Math.min(10, Math.max(1, text.split('\n').length))}
            onChange={(e) => {
              setText(e.target.value)
              setConfirmOver(false)
            }}
            onKeyDown={onKeyDown}
            onPaste={(e: ClipboardEvent) => {
              const files = [...e.clipboardData.files]
              if (files.some((f) => f.type.startsWith('image/'))) {
                e.preventDefault()
                void addFiles(files)
              }
            }}
            placeholder={t('chat.placeholder')}
            aria-label={t('chat.placeholder')}
            data-testid="composer-input"
            disabled={disabled}
            className="max-h-60 min-h-10 flex-1 resize-none bg-transparent px-2 py-2 outline-none"
          />
          {streaming ? (
            <button onClick={onStop} data-testid="stop" className="rounded-lg bg-zinc-800 px-3 py-2 text-sm font-medium text-white dark:bg-zinc-200 dark:text-zinc-900" title="Esc">
              {t('chat.stop')}
            </button>
          ) : (
            <button
              onClick={send}
              disabled={disabled || (!text.trim() && images.length === 0)}
              data-testid="send"
              className="rounded-lg bg-accent px-3 py-2 text-sm font-medium text-white hover:bg-accent-strong disabled:opacity-40"
            >
              {t('chat.send')}
            </button>
          )}
        </div>
        <div className="mt-1.5 flex justify-between text-[11px] text-zinc-500">
          <span>{t('chat.keys')}</span>
          <span data-testid="token-estimate" className={over ? 'font-medium text-red-600' : ''}>
            {contextWindow ? t('chat.tokensOf', { n: tokens.toLocaleString(), max: contextWindow.toLocaleString() }) : t('chat.tokens', { n: tokens.toLocaleString() })}
          </span>
        </div>
        {over && confirmOver && (
          <p role="alert" data-testid="context-warning" className="mt-1 text-xs text-red-600">
            {t('chat.overContext')}
          </p>
        )}
        {notice && (
          <p role="status" className="mt-1 text-xs text-amber-700 dark:text-amber-400">
            {notice}
          </p>
        )}
      </div>
    </div>
  )
}
