import { describe, expect, it } from 'vitest'
import { competitionColumns, type CompetitionMeta } from '../../../src/shared/chat/competition'
import type { Message } from '../../../src/shared/data/message'
import { visiblePath } from '../../../src/renderer/features/chat/branches'

const at = (id: string, extra: Partial<Message>): Message => ({ id, conversationId: 'c', role: 'assistant', content: [{ type: 'text', text: id }], status: 'complete', createdAt: 0, updatedAt: 0, ...extra })
const A = { providerId: 'openai', modelId: 'gpt-4o' }
const B = { providerId: 'ollama', modelId: 'llama3' }
const meta: CompetitionMeta = { models: [A, B] }
const question = at('q', { role: 'user', meta: { competition: meta } })

describe('chat competition', () => {
  it('has one column per model asked, in that order, holding each model’s replies oldest first', () => {
    const all = [question, at('b1', { parentId: 'q', ...B }), at('a1', { parentId: 'q', ...A }), at('a2', { parentId: 'q', ...A })]
    const columns = competitionColumns(all, question, meta)
    expect(columns.map((c) => [c.model.modelId, c.replies.map((r) => r.id)])).toEqual([
      ['gpt-4o', ['a1', 'a2']],
      ['llama3', ['b1']]
    ])
  })

  it('never hides a reply: one from a model not asked gets a column of its own', () => {
    const all = [question, at('a1', { parentId: 'q', ...A }), at('x1', { parentId: 'q', providerId: 'anthropic', modelId: 'claude' }), at('u2', { role: 'user', parentId: 'a1' })]
    const columns = competitionColumns(all, question, meta)
    expect(columns.map((c) => [c.model.modelId, c.replies.map((r) => r.id)])).toEqual([
      ['gpt-4o', ['a1']],
      ['llama3', []],
      ['claude', ['x1']]
    ])
  })

  it('after the choice, the path goes through the chosen reply, not the newest sibling, unless another branch is selected', () => {
    const decided = { ...question, meta: { competition: { ...meta, chosenId: 'a1' } } }
    const all = [decided, at('a1', { parentId: 'q', ...A }), at('next', { role: 'user', parentId: 'a1' }), at('b1', { parentId: 'q', ...B })]
    expect(visiblePath(all, {}).map((m) => m.id)).toEqual(['q', 'a1', 'next'])
    expect(visiblePath(all, { q: 'b1' }).map((m) => m.id)).toEqual(['q', 'b1'])
    // Undecided: the newest, as for any branches.
    expect(visiblePath([question, ...all.slice(1)], {}).map((m) => m.id)).toEqual(['q', 'b1'])
  })
})

describe('columns or tabs', () => {
  it('goes by the space left for the columns, not the window: an artifact panel beside them makes tabs', async () => {
    const { competitionLayout } = await import('../../../src/renderer/features/chat/competition/use-narrow')
    // A 1280 px window without the panel: room for three columns.
    expect(competitionLayout(1000, 3)).toBe('columns')
    // The same window with the artifact panel open: about 130 px a column would be left.
    expect(competitionLayout(420, 3)).toBe('tabs')
    // A wide box still switches when the columns would be too narrow for text.
    expect(competitionLayout(1000, 5)).toBe('tabs')
    // A 1024 px window (issue 18's line) is tabs even for two.
    expect(competitionLayout(760, 2)).toBe('tabs')
  })
})
