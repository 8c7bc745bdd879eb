import { artifactsOf, type ParsedArtifact } from './artifact-tag'

export interface ArtifactVersion extends ParsedArtifact {
  /** The reply that wrote this version. */
  messageId: string
  /** 0-based among the versions of its identifier. */
  version: number
}

/**
 * Every artifact of a conversation's visible path, grouped by identifier: a later artifact with
 * the same identifier is the next version of the same artifact. Ordered by first appearance.
 */
export function collectArtifactVersions(replies: readonly { id: string; text: string }[], parse: (text: string) => readonly ParsedArtifact[] = artifactsOf): Map<string, ArtifactVersion[]> {
  const byId = new Map<string, ArtifactVersion[]>()
  for (const reply of replies) {
    for (const artifact of parse(reply.text)) {
      const list = byId.get(artifact.identifier) ?? []
      list.push({ ...artifact, messageId: reply.id, version: list.length })
      byId.set(artifact.identifier, list)
    }
  }
  return byId
}
