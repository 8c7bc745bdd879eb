import * as Dialog from '@radix-ui/react-dialog'
import { createContext, useContext, useMemo, useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { splitCited } from '../../../shared/knowledge/citations'
import type { ReplySource } from '../../../shared/knowledge/types'


interface SourcesContext {
  sources: readonly ReplySource[]
  show(n: number): void
}
const Context = createContext<SourcesContext | null>(null)

const where = (s: ReplySource) => `${s.fileName}${s.heading ? ` › ${s.heading}` : ''}${s.page ? ` · p. ${s.page}` : ''}`

/** What resting the pointer on a source shows: where it is and how retrieval scored it. */
function useHoverText() {
  const { t } = useTranslation()
  return (s: ReplySource) => (s.score === undefined ? where(s) : `${where(s)} · ${t('knowledge.sourceScore', { score: s.score.toFixed(3) })}`)
}

/**
 * Holds a reply's sources for its [n] links and its Sources list, and the dialog that shows one
 * (the file's text at the chunk it came from).
 */
export function ReplySourcesProvider({ sources, children }: { sources: readonly ReplySource[]; children: ReactNode }) {
  const { t } = useTranslation()
  const [open, setOpen] = useState<ReplySource>()
  // The same object while the sources are: a new one would make React walk the whole reply for consumers on every streamed commit.
  const value = useMemo<SourcesContext>(() => ({ sources, show: (n) => setOpen(sources.find((s) => s.n === n)) }), [sources])
  return (
    <Context.Provider value={value}>
      {children}
      <Dialog.Root open={open !== undefined} onOpenChange={(next) => !next && setOpen(undefined)}>
        <Dialog.Portal>
          <Dialog.Overlay className="fixed inset-0 bg-black/40" />
          <Dialog.Content className="fixed top-1/2 left-1/2 max-h-[80vh] w-[min(94vw,40rem)] -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-xl bg-white p-5 shadow-xl dark:bg-zinc-900" data-testid="source-dialog">
            {open && (
              <>
                <Dialog.Title className="font-semibold">{t('knowledge.sourceTitle', { n: open.n, name: open.fileName })}</Dialog.Title>
                <Dialog.Description className="mb-3 text-xs text-zinc-500">
                  {[open.heading, open.page ? `p. ${open.page}` : null, `${open.charStart}–${open.charEnd}`, open.score === undefined ? null : t('knowledge.sourceScore', { score: open.score.toFixed(3) })]
                    .filter(Boolean)
                    .join(' · ')}
                </Dialog.Description>
                <pre className="text-sm whitespace-pre-wrap">{open.excerpt}</pre>
                <Dialog.Close className="mt-4 rounded-md px-3 py-1.5 text-sm hover:bg-zinc-100 dark:hover:bg-zinc-800">{t('knowledge.close')}</Dialog.Close>
              </>
            )}
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>
    </Context.Provider>
  )
}

/** An [n] marker in the reply's text: opens source n. Outside a reply with that source it is text. */
export function KnowledgeCitation({ n, children }: { n: number; children: ReactNode }) {
  const context = useContext(Context)
  const hover = useHoverText()
  const source = context?.sources.find((s) => s.n === n)
  if (!context || !source) return <>{children}</>
  return (
    <button type="button" onClick={() => context.show(n)} title={hover(source)} className="text-accent hover:underline" data-testid="kb-citation" data-n={n}>
      {children}
    </button>
  )
}

/**
 * The sources under a reply that it cites; the others it was given are behind "n more
 * retrieved". `query` is what retrieval searched when it was a rewrite of the question (scene
 * Search Intent Recognition).
 */
export function ReplySources({ text, query }: { text: string; query?: string }) {
  const { t } = useTranslation()
  const context = useContext(Context)
  const hover = useHoverText()
  const [showMore, setShowMore] = useState(false)
  if (!context || context.sources.length === 0) return null
  const { cited, more } = splitCited(context.sources, text)
  const item = (s: ReplySource) => (
    <li key={s.n}>
      <button onClick={() => context.show(s.n)} title={hover(s)} className="text-left text-accent hover:underline" data-testid="reply-source" data-n={s.n}>
        [{s.n}] {where(s)}
      </button>
    </li>
  )
  return (
    <div className="mt-2 border-t border-zinc-200 pt-2 text-xs dark:border-zinc-800" data-testid="reply-sources">
      <div className="mb-1 font-medium text-zinc-500">{t('knowledge.sources')}</div>
      {query && (
        <p className="mb-1 text-zinc-500" data-testid="reply-sources-query">
          {t('knowledge.searchedFor', { query })}
        </p>
      )}
      {cited.length > 0 && <ol className="space-y-0.5">{cited.map(item)}</ol>}
      {more.length > 0 && (
        <>
          <button type="button" onClick={() => setShowMore((v) => !v)} aria-expanded={showMore} className="mt-1 text-zinc-500 hover:underline" data-testid="reply-sources-more">
            {showMore ? t('knowledge.fewerRetrieved') : t(cited.length ? 'knowledge.moreRetrieved' : 'knowledge.retrievedNotCited', { count: more.length })}
          </button>
          {showMore && <ol className="mt-0.5 space-y-0.5 opacity-80">{more.map(item)}</ol>}
        </>
      )}
    </div>
  )
}
