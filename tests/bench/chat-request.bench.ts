import { pathTo, planHistory } from '../../src/shared/chat/history-window'
import type { Message } from '../../src/shared/data/message'
import { buildChatRequest } from '../../src/core/chat/request-options'
import { toChatMessages } from '../../src/core/chat/to-chat-messages'
import { fmt, medianMs, report } from './util'

/**
 * Issue 15: preparing the request for a 10,000-message conversation — the branch walk, history
 * selection (count, summary, compression plan), the token count of what is sent and the request
 * itself — must take under 20 ms. Baseline in the same run: JSON.stringify of the same messages,
 * a cost every request pays anyway when the SDK serialises it.
 */
const COUNT = 10_000

function conversation(): Message[] {
  const words = 'the quick brown fox jumps over a lazy dog while the model answers at length '
  const cjk = '这是一个用于测试的较长中文句子，其中包含标点符号。'
  const out: Message[] = []
  for (let i = 0; i < COUNT; i++) {
    const user = i % 2 === 0
    const text = (i % 10 === 0 ? cjk.repeat(8) : words.repeat(user ? 3 : 8)) + ` #${i}`
    out.push({
      id: `m${i}`,
      conversationId: 'c1',
      ...(i > 0 ? { parentId: `m${i - 1}` } : {}),
      role: user ? 'user' : 'assistant',
      content: [{ type: 'text', text }],
      status: 'complete',
      createdAt: i,
      updatedAt: i
    })
  }
  return out
}

export default async function chatRequestBench(): Promise<void> {
  const all = conversation()
  const leaf = all[all.length - 1]!.id
  const model = { providerId: 'anthropic', id: 'claude-sonnet-4-5-20250929', extendParams: ['disableContextCaching', 'enableReasoning', 'reasoningBudgetToken'], maxOutput: 64000 }
  const prepare = (window: number, autoCompress: boolean) => {
    const path = pathTo(all, leaf)
    const plan = planHistory(path, { fixedTokens: 20, window, reserve: 4096, autoCompress })
    const sent = plan.compress ? plan.compress.keep : plan.messages
    const messages = toChatMessages('You are helpful.', sent)
    return buildChatRequest(model, messages, { thinking: true, thinkingBudget: 4096 }, { search: false }).request
  }
  const baseline = await medianMs(() => JSON.stringify(all), 21, 3)
  const baseLabel = `JSON.stringify ${COUNT.toLocaleString('en')} msgs`
  const everything = await medianMs(() => prepare(10_000_000, false), 21, 3)
  report(`prepare request, ${COUNT.toLocaleString('en')} msgs, all sent`, everything, baseLabel, baseline, 'ms', '< 20 ms')
  const compressed = await medianMs(() => prepare(200_000, true), 21, 3)
  report(`prepare request, ${COUNT.toLocaleString('en')} msgs, compression planned`, compressed, baseLabel, baseline, 'ms', '< 20 ms')
  const worst = Math.max(everything, compressed)
  console.log(`${worst < 20 ? 'PASS' : 'FAIL'}: slowest preparation ${fmt(worst)} (goal < 20 ms)`)
}
