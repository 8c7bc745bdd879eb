import { useTranslation } from 'react-i18next'
import { X } from 'lucide-react'
import type { PendingAttachment } from './use-attachments'

/** Attached files above the composer: name, token count (or upload state / error), remove. */
export function AttachmentChips({ items, onRemove }: { items: PendingAttachment[]; onRemove(key: string): void }) {
  const { t } = useTranslation()
  if (items.length === 0) return null
  return (
    <ul className="mb-2 flex flex-wrap gap-2" data-testid="composer-files">
      {items.map((item) => (
        <li
          key={item.key}
          data-testid="attachment-chip"
          data-status={item.status}
          className={`flex max-w-72 items-center gap-2 rounded-md border px-2 py-1 text-xs ${
            item.status === 'error' ? 'border-red-400 text-red-700 dark:text-red-400' : 'border-zinc-300 dark:border-zinc-700'
          }`}
        >
          <span className="truncate font-medium" title={item.name}>
            {item.name}
          </span>
          <span className="shrink-0 text-zinc-500" data-testid="attachment-tokens">
            {item.status === 'uploading'
              ? t('attachments.uploading')
              : item.status === 'error'
                ? ''
                : item.attachment?.kind === 'image'
                  ? t('attachments.image')
                  : t('attachments.tokens', { n: (item.attachment?.tokens ?? 0).toLocaleString() })}
            {item.attachment?.truncated ? ` · ${t('attachments.truncated')}` : ''}
          </span>
          {item.error && (
            <span role="alert" className="truncate" title={item.error} data-testid="attachment-error">
              {item.error}
            </span>
          )}
          <button aria-label={t('attachments.remove', { name: item.name })} onClick={() => onRemove(item.key)} className="shrink-0 text-zinc-500 hover:text-zinc-900 dark:hover:text-white">
            <X aria-hidden className="size-3.5" />
          </button>
        </li>
      ))}
    </ul>
  )
}
