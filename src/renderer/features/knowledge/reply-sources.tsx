import * as Dialog from '@radix-ui/react-dialog'
import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { ReplySource } from '../../../shared/knowledge/types'
import { bridge } from '../../stores/app-store'

/**
 * The numbered sources under a reply; each opens the file at the chunk it came from. `query` is
 * what retrieval searched when it was a rewrite of the question (scene Search Intent Recognition).
 */
export function ReplySources({ messageId, done, query }: { messageId: string; done: boolean; query?: string }) {
  const { t } = useTranslation()
  const [sources, setSources] = useState<ReplySource[]>([])
  const [open, setOpen] = useState<ReplySource>()
  useEffect(() => {
    if (!done) return
    let live = true
    void bridge()
      .call('knowledge.sources', { messageIds: [messageId] })
      .then((r) => live && r.ok && setSources(r.value[messageId] ?? []))
    return () => {
      live = false
    }
  }, [messageId, done])
  if (sources.length === 0) return null
  return (
    <div className="mt-2 border-t border-zinc-200 pt-2 text-xs dark:border-zinc-800" data-testid="reply-sources">
      <div className="mb-1 font-medium text-zinc-500">{t('knowledge.sources')}</div>
      {query && (
        <p className="mb-1 text-zinc-500" data-testid="reply-sources-query">
          {t('knowledge.searchedFor', { query })}
        </p>
      )}
      <ol className="space-y-0.5">
        {sources.map((s) => (
          <li key={s.n}>
            <button onClick={() => setOpen(s)} className="text-left text-accent hover:underline" data-testid="reply-source">
              [{s.n}] {s.fileName}
              {s.heading ? ` › ${s.heading}` : ''}
              {s.page ? ` · p. ${s.page}` : ''}
            </button>
          </li>
        ))}
      </ol>
      <Dialog.Root open={open !== undefined} onOpenChange={(next) => !next && setOpen(undefined)}>
        <Dialog.Portal>
          <Dialog.Overlay className="fixed inset-0 bg-black/40" />
          <Dialog.Content className="fixed top-1/2 left-1/2 max-h-[80vh] w-[min(94vw,40rem)] -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-xl bg-white p-5 shadow-xl dark:bg-zinc-900" data-testid="source-dialog">
            {open && (
              <>
                <Dialog.Title className="font-semibold">{t('knowledge.sourceTitle', { n: open.n, name: open.fileName })}</Dialog.Title>
                <Dialog.Description className="mb-3 text-xs text-zinc-500">
                  {[open.heading, open.page ? `p. ${open.page}` : null, `${open.charStart}–${open.charEnd}`].filter(Boolean).join(' · ')}
                </Dialog.Description>
                <pre className="text-sm whitespace-pre-wrap">{open.excerpt}</pre>
                <Dialog.Close className="mt-4 rounded-md px-3 py-1.5 text-sm hover:bg-zinc-100 dark:hover:bg-zinc-800">{t('knowledge.close')}</Dialog.Close>
              </>
            )}
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>
    </div>
  )
}
