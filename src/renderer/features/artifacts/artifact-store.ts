import { create } from 'zustand'
import type { ArtifactType } from '../../../shared/artifacts/artifact-tag'

/** An artifact opened from a fenced block or an HTML document in a reply (not a tag). */
export interface BlockArtifact {
  key: string
  type: ArtifactType
  title: string
  language?: string
  content: string
}

export type OpenArtifact = { source: 'reply'; identifier: string } | { source: 'block'; artifact: BlockArtifact }

interface ArtifactState {
  open?: OpenArtifact
  /** Index into the versions of the open artifact; undefined follows the latest. */
  version?: number
  tab: 'preview' | 'code' | 'diff'
  collapsed: boolean
  width: number
  /** Artifacts the user let reach the network, by identifier or block key. */
  network: Record<string, true>
  /** Replies whose streaming artifact was already opened once (closing it is respected). */
  autoOpened: Record<string, true>
}

export const useArtifacts = create<ArtifactState>()(() => ({ tab: 'preview', collapsed: false, width: 520, network: {}, autoOpened: {} }))

export const artifactKey = (open: OpenArtifact) => (open.source === 'reply' ? `reply:${open.identifier}` : `block:${open.artifact.key}`)

export const artifactActions = {
  openReply(identifier: string, version?: number) {
    useArtifacts.setState({ open: { source: 'reply', identifier }, version, tab: 'preview', collapsed: false })
  },
  openBlock(artifact: BlockArtifact) {
    useArtifacts.setState({ open: { source: 'block', artifact }, version: undefined, tab: 'preview', collapsed: false })
  },
  /** While a reply streams, its artifact opens once; a user who closes it is not overruled. */
  autoOpen(messageId: string, identifier: string) {
    const state = useArtifacts.getState()
    const key = `${messageId}:${identifier}`
    if (state.autoOpened[key]) return
    useArtifacts.setState({ autoOpened: { ...state.autoOpened, [key]: true }, open: { source: 'reply', identifier }, version: undefined, tab: 'preview', collapsed: false })
  },
  close() {
    useArtifacts.setState({ open: undefined, version: undefined })
  },
  setVersion(version: number | undefined) {
    useArtifacts.setState({ version })
  },
  setTab(tab: ArtifactState['tab']) {
    useArtifacts.setState({ tab })
  },
  toggleCollapsed() {
    useArtifacts.setState((s) => ({ collapsed: !s.collapsed }))
  },
  setWidth(width: number) {
    useArtifacts.setState({ width: Math.round(Math.min(Math.max(width, 320), Math.max(360, window.innerWidth - 420))) })
  },
  allowNetwork(key: string, allow: boolean) {
    useArtifacts.setState((s) => {
      const network = { ...s.network }
      if (allow) network[key] = true
      else delete network[key]
      return { network }
    })
  }
}
