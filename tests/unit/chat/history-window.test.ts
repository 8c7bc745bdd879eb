import { describe, expect, it } from 'vitest'
import { messageTokens, pathTo, planHistory } from '../../../src/shared/chat/history-window'
import type { Message } from '../../../src/shared/data/message'
import { countTokens } from '../../../src/shared/tokens/count-tokens'

const msg = (i: number, text: string, extra: Partial<Message> = {}): Message => ({
  id: `m${i}`,
  conversationId: 'c',
  ...(i > 0 ? { parentId: `m${i - 1}` } : {}),
  role: i % 2 === 0 ? 'user' : 'assistant',
  content: [{ type: 'text', text }],
  status: 'complete',
  createdAt: i,
  updatedAt: i,
  ...extra
})
const chain = (n: number, text = 'x'.repeat(400)) => Array.from({ length: n }, (_, i) => msg(i, text))

describe('history window', () => {
  it('sends everything by default and counts it', () => {
    const path = chain(5)
    const plan = planHistory(path, { fixedTokens: 10 })
    expect(plan.messages).toHaveLength(5)
    expect(plan.tokens).toBe(10 + 5 * (4 + 100))
    expect(plan.over).toBe(false)
  })

  it('keeps the last N earlier messages plus the current one', () => {
    expect(planHistory(chain(10), { historyCount: 3 }).messages.map((m) => m.id)).toEqual(['m6', 'm7', 'm8', 'm9'])
  })

  it('a summary replaces what it covers; a count shorter than the summary drops it', () => {
    const path = chain(10)
    path[5] = { ...path[5]!, meta: { historySummary: { text: 'earlier', covers: 6, providerId: 'p', modelId: 'm', at: 0 } } }
    const plan = planHistory(path)
    expect(plan.summary).toEqual({ messageId: 'm5', text: 'earlier', covers: 6 })
    expect(plan.messages.map((m) => m.id)).toEqual(['m6', 'm7', 'm8', 'm9'])
    expect(planHistory(path, { historyCount: 2 }).summary).toBeUndefined()
  })

  it('over the limit with compression: the newest messages within half the limit are kept, the rest marked', () => {
    const plan = planHistory(chain(20), { window: 1000, autoCompress: true })
    expect(plan.compress?.keep.map((m) => m.id)).toEqual(['m16', 'm17', 'm18', 'm19'])
    expect(plan.compress?.older).toHaveLength(16)
    expect(planHistory(chain(20), { window: 1000 }).compress).toBeUndefined()
    expect(planHistory(chain(20), { window: 1000 }).over).toBe(true)
  })

  it('compresses early at a user-set fraction of the window', () => {
    expect(planHistory(chain(5), { window: 1000, autoCompress: true }).compress).toBeUndefined()
    expect(planHistory(chain(5), { window: 1000, autoCompress: true, compressAt: 0.3 }).compress).toBeDefined()
  })

  it('follows the branch, not every message', () => {
    const all = [...chain(4), msg(9, 'other branch', { parentId: 'm1' })]
    expect(pathTo(all, 'm9').map((m) => m.id)).toEqual(['m0', 'm1', 'm9'])
    // A parent cycle (damaged data) ends instead of hanging.
    expect(pathTo([msg(0, 'a', { parentId: 'm1' }), msg(1, 'b')], 'm1')).toHaveLength(2)
  })

  it('images count at the flat rate', () => {
    expect(messageTokens(msg(0, 'abcd', { content: [{ type: 'text', text: 'abcd' }, { type: 'image_url', imageUrl: { url: 'data:' } }] }))).toBe(4 + 1 + 800)
  })
})

describe('countTokens fast path', () => {
  it('gives the same count with and without CJK as the character loop did', () => {
    const loop = (text: string) => {
      let cjk = 0
      for (const ch of text) {
        const c = ch.codePointAt(0) ?? 0
        if ((c >= 0x3040 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x9fff) || (c >= 0xac00 && c <= 0xd7af) || (c >= 0xf900 && c <= 0xfaff)) cjk++
      }
      return cjk + Math.ceil((text.length - cjk) / 4)
    }
    for (const text of ['', 'hello world', '你好，世界 hello', 'emoji 😀 and 한국어 and カタカナ', 'x'.repeat(1001)]) expect(countTokens(text)).toBe(loop(text))
  })
})
