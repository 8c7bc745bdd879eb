import { useEffect, useMemo } from 'react'
import { useTranslation } from 'react-i18next'
import { parseReply, type ParsedArtifact } from '../../../shared/artifacts/artifact-tag'
import { Markdown } from './markdown/markdown'
import { artifactActions } from '../artifacts/artifact-store'

/** Replies written after this page loaded are "new": their artifact opens by itself once. */
const PAGE_LOADED_AT = Date.now()

/** Text that has, or may be starting, an artifact tag (`<artif` at the end mid-stream). */
const MAY_HAVE_ARTIFACT = /<artifact|<a?r?t?i?f?a?c?t?$/

/**
 * A reply's text: markdown as before, with each artifact tag shown as a card that opens the
 * side panel. While the reply streams (or when a new reply arrives whole), its newest artifact
 * opens by itself, once.
 */
export function ReplyText({ messageId, createdAt, text, streaming }: { messageId: string; createdAt: number; text: string; streaming: boolean }) {
  if (!MAY_HAVE_ARTIFACT.test(text)) return <Markdown text={text} streaming={streaming} />
  return <ReplyWithArtifacts messageId={messageId} fresh={streaming || createdAt >= PAGE_LOADED_AT} text={text} streaming={streaming} />
}

function ReplyWithArtifacts({ messageId, fresh, text, streaming }: { messageId: string; fresh: boolean; text: string; streaming: boolean }) {
  const segments = useMemo(() => parseReply(text), [text])
  const newest = [...segments].reverse().find((s) => s.kind === 'artifact')
  const newestId = newest?.kind === 'artifact' ? newest.artifact.identifier : undefined
  // A short reply can arrive whole between two commits, so "new" is not only "streaming now".
  useEffect(() => {
    if (fresh && newestId) artifactActions.autoOpen(messageId, newestId)
  }, [fresh, newestId, messageId])
  return (
    <>
      {segments.map((segment, i) =>
        segment.kind === 'text' ? (
          <Markdown key={i} text={segment.text} streaming={streaming && i === segments.length - 1} />
        ) : (
          <ArtifactCard key={i} artifact={segment.artifact} />
        )
      )}
    </>
  )
}

function ArtifactCard({ artifact }: { artifact: ParsedArtifact }) {
  const { t } = useTranslation()
  return (
    <button
      type="button"
      onClick={() => artifactActions.openReply(artifact.identifier)}
      className="my-2 flex w-full max-w-md items-center gap-3 rounded-lg border border-zinc-200 px-3 py-2 text-left hover:bg-zinc-50 dark:border-zinc-800 dark:hover:bg-zinc-900"
      data-testid="artifact-card"
      data-identifier={artifact.identifier}
    >
      <span aria-hidden className="grid size-8 shrink-0 place-items-center rounded-md bg-accent/10 text-xs font-semibold text-accent">
        {'</>'}
      </span>
      <span className="min-w-0">
        <span className="block truncate text-sm font-medium">{artifact.title}</span>
        <span className="block text-xs text-zinc-500">
          {t(`artifacts.types.${artifact.type}`)} · {artifact.complete ? t('artifacts.open') : t('artifacts.writing')}
        </span>
      </span>
    </button>
  )
}
