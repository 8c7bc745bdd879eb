import { lazy, Suspense, useEffect, useMemo, useRef } from 'react'
import { messageText, type Message } from '../../../shared/data/message'
import { artifactsOf, type ParsedArtifact } from '../../../shared/artifacts/artifact-tag'
import { collectArtifactVersions } from '../../../shared/artifacts/artifact-versions'
import { artifactActions, artifactKey, useArtifacts } from './artifact-store'

const ArtifactPanel = lazy(() => import('./artifact-panel'))

// A streaming commit changes one reply; the others are parsed once.
const parsed = new Map<string, readonly ParsedArtifact[]>()
const parseCached = (text: string) => {
  let hit = parsed.get(text)
  if (!hit) {
    hit = artifactsOf(text)
    if (parsed.size > 200) parsed.delete(parsed.keys().next().value!)
    parsed.set(text, hit)
  }
  return hit
}

/** Where chat-page mounts the artifact panel: nothing until an artifact is opened. */
export function ArtifactPanelSlot({
  conversationId,
  messages,
  all = messages,
  onAskFix
}: {
  conversationId?: string
  /** The branch shown: its replies' versions of an artifact. */
  messages: readonly Message[]
  /** Every message: an artifact of a reply off that branch (a Chat Competition column not shown as the branch) still opens. */
  all?: readonly Message[]
  onAskFix(text: string): void
}) {
  const open = useArtifacts((s) => s.open)
  // Another conversation closes the panel; the first reply of a new chat (no id yet, then its
  // id) does not: its artifact opened while it streamed.
  const shown = useRef(conversationId)
  useEffect(() => {
    if (shown.current !== undefined && shown.current !== conversationId) artifactActions.close()
    shown.current = conversationId
  }, [conversationId])
  const versions = useMemo(() => {
    if (!open) return []
    if (open.source === 'block') return [{ ...open.artifact, identifier: open.artifact.key, complete: true }]
    const versionsIn = (list: readonly Message[]) =>
      collectArtifactVersions(
        list.filter((m) => m.role === 'assistant' && m.content.some((p) => p.type === 'text' && p.text.includes('<artifact'))).map((m) => ({ id: m.id, text: messageText(m.content) })),
        parseCached
      ).get(open.identifier)
    return versionsIn(messages) ?? versionsIn(all) ?? []
  }, [open, messages, all])
  if (!open || versions.length === 0) return null
  return (
    <Suspense fallback={null}>
      <ArtifactPanel versions={versions} keyName={artifactKey(open)} onAskFix={onAskFix} />
    </Suspense>
  )
}
