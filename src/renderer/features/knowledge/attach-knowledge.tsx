import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { KnowledgeBaseSummary } from '../../../shared/knowledge/types'
import { call } from './use-call'

/**
 * Knowledge bases an agent (or a conversation) searches before each reply; saved on each toggle.
 * Without an owner (a new chat, not yet saved) the choice is `draft`, sent with its first message.
 */
export function AttachKnowledge({
  owner,
  draft,
  legend,
  hint,
  onAttached
}: {
  owner?: { kind: 'agent' | 'conversation'; id: string }
  draft?: { ids: readonly string[]; set(ids: string[]): void }
  legend?: string
  hint?: string
  /** What is attached now (after loading and after each toggle). */
  onAttached?(kbIds: string[]): void
}) {
  const { t } = useTranslation()
  const [bases, setBases] = useState<KnowledgeBaseSummary[]>([])
  const [saved, setAttached] = useState<string[]>([])
  const attached = owner ? saved : [...(draft?.ids ?? [])]
  useEffect(() => {
    void Promise.all([call('knowledge.list', {}), owner ? call('knowledge.attached', { owner }) : Promise.resolve(undefined)]).then(
      ([b, a]) => {
        setBases(b)
        if (!a) return
        setAttached(a)
        onAttached?.(a)
      },
      () => undefined
    )
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the owner object is new each render; its identity is kind + id
  }, [owner?.kind, owner?.id])
  if (bases.length === 0) return null
  const toggle = async (id: string, on: boolean) => {
    const next = on ? [...attached, id] : attached.filter((x) => x !== id)
    if (!owner) {
      draft?.set(next)
      onAttached?.(next)
      return
    }
    // Shown at once; the core's answer (what is really attached) replaces it.
    setAttached(next)
    const saved = await call('knowledge.attach', { owner, kbIds: next }).catch(() => attached)
    setAttached(saved)
    onAttached?.(saved)
  }
  return (
    <fieldset className="space-y-1" data-testid="attach-knowledge">
      <legend className="text-sm font-medium">{legend ?? t('knowledge.attach')}</legend>
      <p className="text-xs text-zinc-500">{hint ?? t('knowledge.attachHint')}</p>
      {bases.map((b) => (
        <label key={b.id} className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={attached.includes(b.id)} onChange={(e) => void toggle(b.id, e.target.checked)} data-testid={`attach-kb-${b.name}`} />
          {b.name}
        </label>
      ))}
    </fieldset>
  )
}
