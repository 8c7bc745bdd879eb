import { useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Library } from 'lucide-react'
import { AttachKnowledge } from './attach-knowledge'
import { call } from './use-call'

/**
 * The chat header's knowledge button: knowledge bases attached to this conversation
 * only, searched before each of its replies besides the agent's own. Hidden until a knowledge
 * base exists. Before a new chat's first message the choice is a draft the chat keeps (`draft`), sent
 * with that message.
 */
export function ConversationKnowledge({ conversationId, draft }: { conversationId: string | undefined; draft: { ids: string[]; set(ids: string[]): void } }) {
  const { t } = useTranslation()
  const [open, setOpen] = useState(false)
  const [hasBases, setHasBases] = useState(false)
  const [count, setCount] = useState(0)
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    setOpen(false)
    setCount(0)
    let live = true
    void Promise.all([call('knowledge.list', {}), conversationId ? call('knowledge.attached', { owner: { kind: 'conversation', id: conversationId } }) : Promise.resolve([])]).then(
      ([bases, attached]) => {
        if (!live) return
        setHasBases(bases.length > 0)
        setCount(attached.length)
      },
      () => undefined
    )
    return () => {
      live = false
    }
  }, [conversationId])
  useEffect(() => {
    if (!open) return
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false)
    const onClick = (e: MouseEvent) => box.current && !box.current.contains(e.target as Node) && setOpen(false)
    document.addEventListener('keydown', onKey)
    document.addEventListener('mousedown', onClick)
    return () => {
      document.removeEventListener('keydown', onKey)
      document.removeEventListener('mousedown', onClick)
    }
  }, [open])
  if (!hasBases) return null
  const shown = conversationId ? count : draft.ids.length
  return (
    <div className="relative" ref={box}>
      <button
        type="button"
        onClick={() => setOpen((o) => !o)}
        aria-expanded={open}
        title={t('toolsKb3.conversationKbTitle')}
        data-testid="conversation-kb"
        data-count={shown}
        className={`inline-flex items-center gap-1 rounded-md border px-2 py-1 text-sm hover:bg-zinc-100 dark:hover:bg-zinc-800 ${shown ? 'border-accent text-accent' : 'border-zinc-300 dark:border-zinc-700'}`}
      >
        <Library aria-hidden className="size-4" />
        {t('toolsKb3.conversationKb')}
        {shown ? ` · ${shown}` : ''}
      </button>
      {open && (
        <div role="dialog" aria-label={t('toolsKb3.conversationKbTitle')} className="absolute top-full right-0 z-20 mt-1 w-72 rounded-lg border border-zinc-200 bg-white p-3 shadow-lg dark:border-zinc-700 dark:bg-zinc-900" data-testid="conversation-kb-panel">
          {conversationId ? (
            <AttachKnowledge owner={{ kind: 'conversation', id: conversationId }} legend={t('toolsKb3.conversationKbTitle')} hint={t('toolsKb3.conversationKbHint')} onAttached={(ids) => setCount(ids.length)} />
          ) : (
            <AttachKnowledge draft={draft} legend={t('toolsKb3.conversationKbTitle')} hint={t('toolsKb3.conversationKbHint')} />
          )}
        </div>
      )}
    </div>
  )
}
