import { useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Library } from 'lucide-react'
import { AttachKnowledge } from './attach-knowledge'
import { call } from './use-call'

/**
 * The chat header's knowledge button (issue 22): knowledge bases attached to this conversation
 * only, searched before each of its replies besides the agent's own. Hidden until a knowledge
 * base exists and the conversation has been saved (its first message).
 */
export function ConversationKnowledge({ conversationId }: { conversationId: string | undefined }) {
  const { t } = useTranslation()
  const [open, setOpen] = useState(false)
  const [hasBases, setHasBases] = useState(false)
  const [count, setCount] = useState(0)
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    setOpen(false)
    setCount(0)
    if (!conversationId) return
    let live = true
    void Promise.all([call('knowledge.list', {}), call('knowledge.attached', { owner: { kind: 'conversation', id: conversationId } })]).then(
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
  if (!conversationId || !hasBases) return null
  return (
    <div className="relative" ref={box}>
      <button
        type="button"
        onClick={() => setOpen((o) => !o)}
        aria-expanded={open}
        title={t('toolsKb3.conversationKbTitle')}
        data-testid="conversation-kb"
        data-count={count}
        className={`inline-flex items-center gap-1 rounded-md border px-2 py-1 text-sm hover:bg-zinc-100 dark:hover:bg-zinc-800 ${count ? 'border-accent text-accent' : 'border-zinc-300 dark:border-zinc-700'}`}
      >
        <Library aria-hidden className="size-4" />
        {t('toolsKb3.conversationKb')}
        {count ? ` · ${count}` : ''}
      </button>
      {open && (
        <div role="dialog" aria-label={t('toolsKb3.conversationKbTitle')} className="absolute top-full right-0 z-20 mt-1 w-72 rounded-lg border border-zinc-200 bg-white p-3 shadow-lg dark:border-zinc-700 dark:bg-zinc-900" data-testid="conversation-kb-panel">
          <AttachKnowledge owner={{ kind: 'conversation', id: conversationId }} legend={t('toolsKb3.conversationKbTitle')} hint={t('toolsKb3.conversationKbHint')} onAttached={(ids) => setCount(ids.length)} />
        </div>
      )}
    </div>
  )
}
