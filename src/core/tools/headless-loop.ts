import type { StreamEvent } from '../../shared/stream/events'
import type { ToolStreamEvent } from '../../shared/tools/types'
import { mergeToolCalls } from '../../shared/chat/apply-event'
import type { ToolResult } from '../../shared/data/message'
import type { CallOptions, ChatMessage, ChatRequest, ProviderRuntime, ToolCall } from '../runtime/types'
import { runToolStep, toolTurnMessages } from './tool-loop'
import type { OfferedTool, ToolService } from './tool-service'

export interface HeadlessLoopOptions extends CallOptions {
  signal: AbortSignal
  stepLimit: number
  autoApprove: boolean
}

/**
 * The tool loop without a conversation store (the CLI, benchmarks): the same step runner,
 * approvals and errors as a chat reply, with the history kept in memory.
 */
export async function* runHeadlessToolLoop(
  runtime: ProviderRuntime,
  request: ChatRequest,
  service: ToolService,
  offered: readonly OfferedTool[],
  options: HeadlessLoopOptions
): AsyncGenerator<StreamEvent | ToolStreamEvent | { type: 'tool_result'; data: ToolResult }, ChatMessage[]> {
  if (!runtime.chat) throw new Error('This provider does not offer chat.')
  const messages = [...request.messages]
  const { stepLimit, autoApprove, ...callOptions } = options
  for (let step = 0; ; step++) {
    const tools = step < stepLimit - 1 && offered.length ? offered.map((t) => t.chatTool) : undefined
    let calls: ToolCall[] = []
    let text = ''
    let failed = false
    for await (const event of runtime.chat({ ...request, messages, ...(tools ? { tools } : { tools: undefined }) }, callOptions)) {
      if (event.type === 'tool_calls') calls = mergeToolCalls(calls, event.data)
      if (event.type === 'text') text += event.data
      if (event.type === 'error') failed = true
      yield event
    }
    if (failed || calls.length === 0 || options.signal.aborted) return messages
    const clean = calls.map((c) => ({ id: c.id, type: 'function', function: c.function, ...(c.thoughtSignature ? { thoughtSignature: c.thoughtSignature } : {}) }))
    messages.push({ role: 'assistant', content: text, tool_calls: clean })
    const outcome = yield* runToolStep(service, offered, clean, { messageId: `headless-${step}`, signal: options.signal, autoApprove })
    for (const result of outcome.results) yield { type: 'tool_result', data: result }
    messages.push(...toolTurnMessages(clean, outcome.results))
  }
}
