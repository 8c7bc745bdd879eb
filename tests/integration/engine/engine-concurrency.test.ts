import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ChatParams } from '../../../src/core/engine/protocol'
import { engineHarness, type EngineHarness } from './engine-harness'

// The built-in engine serves two requests of one model at once (context sequences): a second
// chat while one streams starts at once instead of waiting for the first to end.
describe('the built-in engine serves two chats at once (real engine process)', () => {
  let h: EngineHarness
  beforeEach(() => {
    h = engineHarness({ totalMemoryBytes: 8 * 1024 ** 3 })
    h.model('a')
  })
  afterEach(async () => h.close())

  const params = (text: string): Omit<ChatParams, 'modelId'> => ({ history: [{ type: 'user', text }, { type: 'model', response: [] }], maxTokens: 300, temperature: 0 })

  it('loads with two slots when the memory allows, and both streams have a first token before either ends', async () => {
    const plan = await h.engine.load('a')
    expect(plan.slots).toBe(2)
    const t0 = performance.now()
    const run = async (text: string) => {
      let first: number | undefined
      let end = 0
      let chars = 0
      for await (const item of h.engine.chat('a', params(text))) {
        if (item.type === 'chunk') {
          first ??= performance.now() - t0
          chars += item.chunk.text.length
        } else end = performance.now() - t0
      }
      return { first: first!, end, chars }
    }
    const [one, two] = await Promise.all([run('hello there'), run('tell me something')])
    expect(one.chars).toBeGreaterThan(0)
    expect(two.chars).toBeGreaterThan(0)
    expect(Math.max(one.first, two.first)).toBeLessThan(Math.min(one.end, two.end))
    expect((await h.engine.ps()).models[0]).toMatchObject({ slots: 2 })
  }, 60_000)

  it('a third chat waits for a free slot and still answers', async () => {
    await h.engine.load('a')
    const texts = await Promise.all(
      ['one', 'two', 'three'].map(async (text) => {
        let out = ''
        for await (const item of h.engine.chat('a', params(text))) if (item.type === 'chunk') out += item.chunk.text
        return out
      })
    )
    for (const t of texts) expect(t.length).toBeGreaterThan(0)
  }, 60_000)
})
