import { useTranslation } from 'react-i18next'
import type { KnowledgeFile } from '../../../shared/knowledge/types'
import { ProgressBar } from '../../components/progress-bar'
import { percent } from '../../../shared/local/format'

const STATUS_COLOUR: Record<KnowledgeFile['status'], string> = {
  Pending: 'text-zinc-500',
  Processing: 'text-blue-600 dark:text-blue-400',
  Success: 'text-green-700 dark:text-green-400',
  Error: 'text-red-600 dark:text-red-400'
}

/** A file with its status (the spec's values), what it is doing, a progress bar, and why it failed. */
export function FileRow({ file, onRetry, onRemove }: { file: KnowledgeFile; onRetry(): void; onRemove(): void }) {
  const { t } = useTranslation()
  const canRetry = (file.status === 'Error' && file.path !== null) || file.flagged !== null
  return (
    <tr className="border-b border-zinc-100 align-top dark:border-zinc-800" data-testid="kb-file" data-name={file.name} data-status={file.status}>
      <td className="py-2 pr-3">
        <div className="font-medium">{file.name}</div>
        <div className="truncate text-xs text-zinc-500" title={file.source}>
          {file.source}
        </div>
        {file.error && (
          <div className="text-xs text-red-600 dark:text-red-400" data-testid="kb-file-error">
            {file.error}
          </div>
        )}
        {file.flagged && (
          <div className="text-xs text-amber-700 dark:text-amber-400" title={file.flagged} data-testid="kb-file-flagged">
            {t('knowledge.flagged')}: {file.flagged}
          </div>
        )}
      </td>
      <td className="w-56 py-2 pr-3">
        <div className={`text-xs font-medium ${STATUS_COLOUR[file.status]}`}>
          {t(`knowledge.status.${file.status}`)}
          {file.status === 'Processing' && ` · ${t(`knowledge.stage.${file.stage}`)}`}
        </div>
        <ProgressBar percent={percent(file.progress)} className="mt-1 h-1.5 w-full rounded" fill={file.status === 'Error' ? 'bg-red-500' : 'bg-accent'} />
        {file.chunksTotal > 0 && <div className="text-xs text-zinc-500">{t('knowledge.chunks', { done: file.status === 'Success' ? file.chunksTotal : file.chunksDone, total: file.chunksTotal })}</div>}
      </td>
      <td className="w-40 py-2 text-right text-xs whitespace-nowrap">
        {canRetry && (
          <button onClick={onRetry} className="mr-2 text-accent hover:underline" data-testid="kb-file-retry">
            {t('knowledge.retry')}
          </button>
        )}
        <button onClick={onRemove} className="text-zinc-500 hover:text-red-600" data-testid="kb-file-remove">
          {t('knowledge.remove')}
        </button>
      </td>
    </tr>
  )
}
