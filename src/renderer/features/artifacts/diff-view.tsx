import { useMemo } from 'react'
import { diffLines } from 'diff'

/** What changed from one version to the next, line by line; long lines wrap (no sideways scrolling to read a change). */
export function DiffView({ before, after }: { before: string; after: string }) {
  const parts = useMemo(() => diffLines(before, after), [before, after])
  return (
    <pre className="h-full overflow-auto p-3 font-mono text-[12px] leading-snug break-words whitespace-pre-wrap" data-testid="artifact-diff">
      {parts.map((part, i) => {
        const sign = part.added ? '+' : part.removed ? '-' : ' '
        const tone = part.added ? 'bg-emerald-500/15 text-emerald-800 dark:text-emerald-300' : part.removed ? 'bg-red-500/15 text-red-800 dark:text-red-300' : 'text-zinc-500'
        const lines = part.value.replace(/\n$/, '').split('\n')
        return (
          <span key={i} className={`block ${tone}`} data-diff={part.added ? 'added' : part.removed ? 'removed' : 'same'}>
            {lines.map((line) => `${sign} ${line}`).join('\n')}
          </span>
        )
      })}
    </pre>
  )
}
