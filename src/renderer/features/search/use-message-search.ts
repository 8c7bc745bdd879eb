import { useEffect, useState } from 'react'
import type { SearchHit } from '../../../shared/data/search'
import { bridge } from '../../stores/app-store'

/** What a message search asks besides its words (the conversation list and the palette differ). */
export interface MessageSearchScope {
  agentId?: string
  modelId?: string
  /** Day bounds as `YYYY-MM-DD` in the user's calendar; `to` includes its whole day. */
  from?: string
  to?: string
  limit: number
}

const DAY = 86_400_000
const dayStart = (day: string) => new Date(`${day}T00:00:00`).getTime()

/**
 * Message hits for the typed words, debounced; undefined while the first answer is pending.
 * The one search hook of the renderer: the conversation list and the Ctrl/Cmd+K palette use it.
 */
export function useMessageSearch(query: string, scope: MessageSearchScope, debounceMs = 150): SearchHit[] | undefined {
  const [hits, setHits] = useState<SearchHit[]>()
  const { agentId, modelId, from, to, limit } = scope
  useEffect(() => {
    const text = query.trim()
    setHits(undefined)
    if (!text) return
    let live = true
    const timer = setTimeout(() => {
      const filters = {
        ...(modelId ? { modelId } : {}),
        ...(from ? { from: dayStart(from) } : {}),
        ...(to ? { to: dayStart(to) + DAY } : {})
      }
      void bridge()
        .call('data.search', {
          query: text,
          scope: agentId ? { kind: 'agent', agentId } : { kind: 'all' },
          limit,
          ...(Object.keys(filters).length ? { filters } : {})
        })
        .then((result) => {
          if (live) setHits(result.ok ? result.value : [])
        })
    }, debounceMs)
    return () => {
      live = false
      clearTimeout(timer)
    }
  }, [query, agentId, modelId, from, to, limit, debounceMs])
  return hits
}
