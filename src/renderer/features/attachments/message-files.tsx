import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { FileText } from 'lucide-react'
import type { Attachment } from '../../../shared/bridge/procedures/files'
import { bridge } from '../../stores/app-store'

/** The files a sent message carried, with the tokens their text added. */
export function MessageFiles({ fileIds }: { fileIds: readonly string[] }) {
  const { t } = useTranslation()
  const [files, setFiles] = useState<Attachment[]>()
  const ids = fileIds.join(',')
  useEffect(() => {
    let live = true
    void bridge()
      .call('files.get', { fileIds: ids.split(',') })
      .then((r) => live && r.ok && setFiles(r.value))
    return () => {
      live = false
    }
  }, [ids])
  if (!files?.length) return null
  return (
    <ul className="mt-2 flex flex-wrap gap-1.5" data-testid="message-files">
      {files.map((a) => (
        <li key={a.file.id} className="rounded border border-zinc-300 bg-white/60 px-2 py-0.5 text-xs dark:border-zinc-700 dark:bg-zinc-900/60">
          <FileText aria-hidden className="mr-1 inline size-3.5 align-[-2px]" />
          {a.file.name} <span className="text-zinc-500">· {t('attachments.tokens', { n: a.tokens.toLocaleString() })}</span>
        </li>
      ))}
    </ul>
  )
}
