import { describe, expect, it } from 'vitest'
import { matches, paletteItems, type PaletteItem } from '../../../src/renderer/features/palette/palette-items'
import type { Agent } from '../../../src/shared/data/agent'
import type { Conversation } from '../../../src/shared/data/conversation'

const noop = () => undefined
const action = (label: string): PaletteItem => ({ id: `action:${label}`, kind: 'action', label, run: noop })
const page = (label: string): PaletteItem => ({ id: `page:${label}`, kind: 'page', label, run: noop })
const agent = (id: string, name: string) => ({ id, name, systemPrompt: '', parameters: {}, tags: [], createdAt: 0, updatedAt: 0 }) as Agent
const conversation = (id: string, title: string, updatedAt: number) => ({ id, agentId: 'a', title, pinned: false, createdAt: 0, updatedAt }) as Conversation

const base = {
  actions: [action('New chat'), action('Back up now')],
  pages: [page('Settings → Data'), page('Settings → Usage and cost')],
  agents: [agent('a1', 'Code reviewer'), agent('a2', 'Translator')],
  conversations: [conversation('c1', 'Sorting algorithms', 1), conversation('c2', 'Trip to Kyōto', 2)],
  hits: [{ messageId: 'm1', conversationId: 'c1', agentId: 'a1', conversationTitle: 'Sorting algorithms', role: 'assistant' as const, createdAt: 0, snippet: [{ text: 'use ', match: false }, { text: 'quicksort', match: true }] }],
  openAgent: noop,
  openConversation: noop,
  openMessage: noop,
  untitled: 'Untitled'
}

describe('the command palette list', () => {
  it('with no query: actions, pages, then recent conversations newest first; no agents or messages', () => {
    expect(paletteItems({ ...base, query: '' }).map((i) => i.id)).toEqual([
      'action:New chat',
      'action:Back up now',
      'page:Settings → Data',
      'page:Settings → Usage and cost',
      'conversation:c2',
      'conversation:c1'
    ])
  })

  it('filters every kind by the words typed (any order, accents and case ignored) and adds the message hits last', () => {
    expect(paletteItems({ ...base, query: 'kyoto trip' }).map((i) => i.id)).toEqual(['conversation:c2', 'message:m1'])
    expect(paletteItems({ ...base, query: 'data' }).map((i) => i.id)).toEqual(['page:Settings → Data', 'message:m1'])
    expect(paletteItems({ ...base, query: 'reviewer' }).map((i) => i.id)).toEqual(['agent:a1', 'message:m1'])
    const message = paletteItems({ ...base, query: 'quicksort' }).find((i) => i.kind === 'message')!
    expect(message).toMatchObject({ label: 'use quicksort', detail: 'Sorting algorithms' })
  })

  it('matches words, not their order', () => {
    expect(matches('Settings → Usage and cost', 'cost usage')).toBe(true)
    expect(matches('Settings → Usage and cost', 'costs')).toBe(false)
  })
})
