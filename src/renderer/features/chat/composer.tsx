import { useEffect, useRef, useState, type ClipboardEvent, type DragEvent, type KeyboardEvent, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { countTokens, IMAGE_TOKENS } from '../../../shared/tokens/count-tokens'
import { bridge } from '../../stores/app-store'
import { AttachmentChips } from '../attachments/attachment-chips'
import { fitImage } from '../attachments/resize-image'
import { useAttachments } from '../attachments/use-attachments'
import { DictationButton } from '../voice/dictation-button'
import { Paperclip, X } from 'lucide-react'
import { loadDraft, onDraftRestored, saveDraft } from './drafts'

export interface ComposerProps {
  streaming: boolean
  /** The model reads images (vision); otherwise pasted images are refused with a message. */
  vision: boolean
  contextWindow?: number
  /** Tokens of the history that would be sent with the next message. */
  historyTokens: number
  disabled?: boolean
  /** The conversation's provider: images over its inline limit are scaled down before sending. */
  providerId?: string
  /** `files`: ids of uploaded files (files.upload) whose text goes with the message. */
  onSend(text: string, images: { dataUrl: string }[], files?: string[]): void
  onStop(): void
  /** The model's controls (search, thinking, caching…) above the input. */
  controls?: ReactNode
  /** A note next to the token counter (e.g. the older part will be summarised). */
  tokenNote?: string
  /** Where the typed text is kept (per conversation, across reloads); see drafts.ts. */
  draftKey?: string
  /** The model's facts are still loading: the counter waits rather than change form. */
  tokensPending?: boolean
  /** What this conversation has cost so far (shown beside the key hints). */
  costNote?: ReactNode
}

const MAX_IMAGE_BYTES = 20 * 1024 * 1024

/** Good enough to warn before sending, never used for billing (the same estimate as the core's). */
export const estimateTextTokens = countTokens

export function Composer({ streaming, vision, contextWindow, historyTokens, disabled, providerId, onSend, onStop, controls, tokenNote, draftKey, tokensPending = false, costNote }: ComposerProps) {
  const { t } = useTranslation()
  const [text, setTextState] = useState(() => (draftKey ? loadDraft(draftKey) : ''))
  // Every change is written through, so a reload or a crash of the page keeps what was typed.
  const setText = (next: string) => {
    setTextState(next)
    if (draftKey) saveDraft(draftKey, next)
  }
  const latest = useRef(text)
  latest.current = text
  const shownKey = useRef(draftKey)
  useEffect(() => {
    if (shownKey.current === draftKey) return
    shownKey.current = draftKey
    setTextState(draftKey ? loadDraft(draftKey) : '')
  }, [draftKey])
  useEffect(() => onDraftRestored((key, restored) => key === shownKey.current && setTextState(restored)), [])
  const [images, setImages] = useState<{ dataUrl: string; name: string }[]>([])
  const [notice, setNotice] = useState<string>()
  const [confirmOver, setConfirmOver] = useState(false)
  const ref = useRef<HTMLTextAreaElement>(null)
  const picker = useRef<HTMLInputElement>(null)
  const attachments = useAttachments()
  const tokens = historyTokens + estimateTextTokens(text) + images.length * IMAGE_TOKENS + attachments.tokens
  const over = contextWindow !== undefined && tokens > contextWindow
  const empty = !text.trim() && images.length === 0 && attachments.fileIds.length === 0

  const addFiles = async (files: File[]) => {
    const pictures = files.filter((f) => f.type.startsWith('image/'))
    // Text, Markdown, code and PDF go to the core, which stores them and extracts their text.
    const documents = files.filter((f) => !f.type.startsWith('image/'))
    if (documents.length > 0) void attachments.add(documents)
    if (pictures.length === 0) return
    if (!vision) {
      // The built-in engine's binding takes text only, whatever the model: say that, not "pick a vision model" of it.
      setNotice(t(providerId === 'builtin' ? 'chat.builtinNoImages' : 'chat.noVision'))
      return
    }
    const limit = await bridge()
      .call('files.imageLimit', providerId ? { providerId } : {})
      .then((r) => (r.ok ? r.value : { maxEdge: 2048, maxBytes: MAX_IMAGE_BYTES }))
    for (const file of pictures) {
      if (file.size > MAX_IMAGE_BYTES * 5) {
        setNotice(t('chat.imageTooLarge', { name: file.name }))
        continue
      }
      try {
        const fitted = await fitImage(file, limit)
        if (fitted.resized) setNotice(t('attachments.resized', { name: file.name, width: fitted.width, height: fitted.height }))
        setImages((list) => [...list, { dataUrl: fitted.dataUrl, name: file.name }])
      } catch (e) {
        setNotice(t('attachments.imageFailed', { name: file.name, reason: e instanceof Error ? e.message : String(e) }))
      }
    }
  }

  const send = () => {
    if (disabled || streaming || attachments.uploading) return
    if (empty) return
    if (over && !confirmOver) {
      setConfirmOver(true)
      return
    }
    onSend(text, images.map(({ dataUrl }) => ({ dataUrl })), attachments.fileIds.length ? attachments.fileIds : undefined)
    setText('')
    setImages([])
    attachments.clear()
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
                  <X aria-hidden className="size-3" />
                </button>
              </div>
            ))}
          </div>
        )}
        <AttachmentChips items={attachments.items} onRemove={attachments.remove} />
        {controls}
        <div className="flex items-end gap-2 rounded-xl border border-zinc-300 bg-white p-2 focus-within:border-accent dark:border-zinc-700 dark:bg-zinc-900">
          <textarea
            ref={ref}
            value={text}
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
            rows={Math.min(10, Math.max(1, text.split('\n').length))}
            placeholder={t('chat.placeholder')}
            aria-label={t('chat.placeholder')}
            data-testid="composer-input"
            disabled={disabled}
            // One line of placeholder, ended with an ellipsis when the composer is narrow (the artifact
            // panel open): a wrapped placeholder was cut through its second line. The keys are also
            // in the hint under the composer.
            className="max-h-60 min-h-10 min-w-0 flex-1 resize-none bg-transparent px-2 py-2 outline-none placeholder:truncate"
          />
          <input
            ref={picker}
            type="file"
            multiple
            hidden
            data-testid="attach-input"
            accept="image/png,image/jpeg,image/webp,image/gif,application/pdf,text/*,.md,.markdown,.json,.yaml,.yml,.toml,.csv,.ts,.tsx,.js,.jsx,.py,.rs,.go,.java,.c,.cpp,.h,.cs,.rb,.php,.sh,.sql,.swift,.kt"
            onChange={(e) => {
              void addFiles([...(e.target.files ?? [])])
              e.target.value = ''
            }}
          />
          <button
            type="button"
            onClick={() => picker.current?.click()}
            disabled={disabled}
            aria-label={t('attachments.attach')}
            title={t('attachments.attach')}
            data-testid="attach"
            className="grid size-9 place-items-center rounded-lg border border-zinc-300 text-zinc-600 hover:bg-zinc-100 disabled:opacity-40 dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800"
          >
            <Paperclip aria-hidden className="size-4" />
          </button>
          <DictationButton
            disabled={disabled}
            onText={(spoken) => {
              // Transcription ends later: add to what is in the box then, not when recording began.
              const current = latest.current
              setText(current.trim() ? `${current.replace(/\s+$/, '')} ${spoken}` : spoken)
              ref.current?.focus()
            }}
          />
          {streaming ? (
            <button onClick={onStop} data-testid="stop" className="rounded-lg bg-zinc-800 px-3 py-2 text-sm font-medium text-white dark:bg-zinc-200 dark:text-zinc-900" title="Esc">
              {t('chat.stop')}
            </button>
          ) : (
            <button
              onClick={send}
              disabled={disabled || empty || attachments.uploading}
              data-testid="send"
              className="rounded-lg bg-accent px-3 py-2 text-sm font-medium text-white hover:bg-accent-strong disabled:opacity-40"
            >
              {t('chat.send')}
            </button>
          )}
        </div>
        <div className="mt-1.5 flex justify-between text-[11px] text-zinc-500">
          <span className="flex min-w-0 items-center gap-2">
            <span className="truncate">{t('chat.keys')}</span>
            {costNote}
          </span>
          <span data-testid="token-estimate" className={over ? 'font-medium text-red-600' : ''}>
            {tokensPending
              ? '\u00a0'
              : contextWindow
                ? t('chat.tokensOf', { n: tokens.toLocaleString(), max: contextWindow.toLocaleString() })
                : t('chat.tokens', { n: tokens.toLocaleString() })}
            {tokenNote && <span data-testid="token-note"> · {tokenNote}</span>}
          </span>
        </div>
        {over && confirmOver && (
          <p role="alert" data-testid="context-warning" className="mt-1 text-xs text-red-600">
            {t('chat.overContext')}
          </p>
        )}
        {notice && (
          <p role="status" className="mt-1 text-xs text-amber-700 dark:text-amber-400" data-testid="composer-notice">
            {notice}
          </p>
        )}
      </div>
    </div>
  )
}
