import { afterEach, describe, expect, it } from 'vitest'
import { costInUsd } from '../../../src/core/store/repositories/usage-log'
import { DEFAULT_USD_TO_CNY } from '../../../src/shared/pricing/currency'
import { openTemp, seed } from './helpers'

// Issue 16, usage and cost: totals per agent and conversation, in the pricing currency and in USD
// (CNY at the pricing module's fixed rate), and days on the user's calendar.
let env: ReturnType<typeof openTemp> | undefined
afterEach(() => {
  env?.cleanup()
  env = undefined
})

describe('usage summary', () => {
  it('totals per agent and per conversation, each row also in USD; calls without a conversation have the key ""', () => {
    env = openTemp()
    const { usage } = env.store
    const a = seed(env.store, 'A')
    const b = seed(env.store, 'B')
    const a2 = env.store.conversations.create({ agentId: a.agent.id })
    usage.add({ scene: 'Conversation', providerId: 'openai', modelId: 'm', conversationId: a.conversation.id, usage: { totalTokens: 10 }, cost: { currency: 'USD', total: 0.5 } })
    usage.add({ scene: 'Conversation', providerId: 'openai', modelId: 'm', conversationId: a2.id, usage: { totalTokens: 5 }, cost: { currency: 'USD', total: 0.25 } })
    usage.add({ scene: 'Conversation', providerId: 'deepseek', modelId: 'd', conversationId: b.conversation.id, usage: { totalTokens: 7 }, cost: { currency: 'CNY', total: 7.12 } })
    usage.add({ scene: 'Summary Topic Title', providerId: 'openai', modelId: 'm', usage: { totalTokens: 3 }, cost: { currency: 'USD', total: 0.01 } })

    const byAgent = usage.summary('agent')
    expect(byAgent.find((r) => r.key === a.agent.id)).toMatchObject({ calls: 2, totalTokens: 15, cost: 0.75, costUsd: 0.75, currency: 'USD' })
    const bRow = byAgent.find((r) => r.key === b.agent.id)!
    expect(bRow).toMatchObject({ calls: 1, cost: 7.12, currency: 'CNY' })
    expect(bRow.costUsd).toBeCloseTo(7.12 / DEFAULT_USD_TO_CNY, 12)
    expect(byAgent.find((r) => r.key === '')).toMatchObject({ calls: 1, cost: 0.01 })

    // Filters: one agent's calls, one conversation's calls.
    expect(usage.summary('model', { agentId: a.agent.id })).toEqual([{ key: 'm', calls: 2, totalTokens: 15, cost: 0.75, costUsd: 0.75, currency: 'USD', inputTokens: 0, cachedInputTokens: 0 }])
    expect(usage.summary('conversation', { conversationId: a2.id })).toEqual([{ key: a2.id, calls: 1, totalTokens: 5, cost: 0.25, costUsd: 0.25, currency: 'USD', inputTokens: 0, cachedInputTokens: 0 }])
  })

  it('"day" is the user\'s calendar day when their UTC offset is given', () => {
    env = openTemp()
    // 23:30 UTC on 1 March is already 2 March in UTC+8.
    const at = Date.UTC(2026, 2, 1, 23, 30)
    env.store.usage.add({ at, scene: 'Conversation', providerId: 'openai', modelId: 'm', cost: { currency: 'USD', total: 1 } })
    expect(env.store.usage.summary('day').map((r) => r.key)).toEqual(['2026-03-01'])
    expect(env.store.usage.summary('day', { utcOffsetMinutes: 480 }).map((r) => r.key)).toEqual(['2026-03-02'])
    expect(env.store.usage.summary('day', { utcOffsetMinutes: -300 }).map((r) => r.key)).toEqual(['2026-03-01'])
  })

  it('converts to USD at the fixed documented rate; an unknown currency has no USD value', () => {
    expect(costInUsd(1, undefined)).toBe(1)
    expect(costInUsd(1, 'USD')).toBe(1)
    expect(costInUsd(DEFAULT_USD_TO_CNY, 'CNY')).toBeCloseTo(1, 12)
    expect(costInUsd(5, 'EUR')).toBe(0)
  })
})
