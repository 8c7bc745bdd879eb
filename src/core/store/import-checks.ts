import type { ImportCounts, ImportReport } from '../../shared/data/export-file'

type Lists = { [K in 'agents' | 'conversations' | 'topics' | 'messages']: readonly { id: string }[] } & { providers?: readonly { providerId: string }[] }

/**
 * Rows of one file that repeat an id an earlier row of the same file has. The first is imported
 * and the rest are not (an id is never overwritten): they are listed, so the user is told that
 * part of the file did not come in, and where.
 */
export function duplicateIds(file: Lists): NonNullable<ImportReport['duplicates']> {
  const out: NonNullable<ImportReport['duplicates']> = []
  const scan = (kind: keyof ImportCounts, ids: readonly string[]) => {
    const seen = new Set<string>()
    ids.forEach((id, index) => {
      if (seen.has(id)) out.push({ kind, id, index })
      else seen.add(id)
    })
  }
  for (const kind of ['agents', 'conversations', 'topics', 'messages'] as const) scan(kind, file[kind].map((row) => row.id))
  scan('providers', (file.providers ?? []).map((p) => p.providerId))
  return out
}
