import { messageText, type Message, type ToolResult } from '../../shared/data/message'
import type { GroundingCitation, ToolCall } from '../../shared/stream/events'
import { toolKey, type ToolStreamEvent } from '../../shared/tools/types'
import type { ChatMessage } from '../runtime/types'
import { pluginError } from './tool-errors'
import type { OfferedTool, ToolService } from './tool-service'

export interface ToolStepContext {
  messageId: string
  signal: AbortSignal
  autoApprove?: boolean
  /** The reply's model (it answers the servers' sampling requests) and its conversation. */
  model?: { providerId: string; modelId: string }
  conversationId?: string
  /** Each result as soon as it exists (the chat service writes it to the message: a crash keeps it). */
  onResult?(result: ToolResult): void
}

export interface ToolStepOutcome {
  results: ToolResult[]
  citations: GroundingCitation[]
}

const pretty = (args: string): string => {
  try {
    return JSON.stringify(JSON.parse(args), null, 2)
  } catch {
    return args
  }
}

/**
 * One step of the tool loop: every call of an assistant turn, concurrently. Each call is
 * asked for (approval card) unless its tool is always allowed or the run auto-approves;
 * a denial and every failure become results the model reads. Events (approval requests,
 * progress) are yielded in the order they happen while the calls run.
 */
export async function* runToolStep(service: ToolService, offered: readonly OfferedTool[], calls: readonly ToolCall[], ctx: ToolStepContext): AsyncGenerator<ToolStreamEvent, ToolStepOutcome> {
  const queue: ToolStreamEvent[] = []
  let wake: (() => void) | undefined
  const push = (event: ToolStreamEvent) => {
    queue.push(event)
    wake?.()
  }
  const byName = new Map(offered.map((t) => [t.exposedName, t]))
  // Read once per step, not per call: the settings live in SQLite.
  const approvals = service.toolSettings().approvals
  const citations: GroundingCitation[] = []
  const results: ToolResult[] = new Array(calls.length)

  const runOne = async (call: ToolCall, index: number): Promise<void> => {
    const finish = (result: ToolResult) => {
      results[index] = result
      ctx.onResult?.(result)
    }
    const tool = byName.get(call.function.name)
    if (!tool) {
      const error = pluginError('PluginApiNotFound', `There is no tool named ${JSON.stringify(call.function.name)}. Use one of: ${[...byName.keys()].join(', ') || 'none'}.`)
      return finish({ toolCallId: call.id, tool: call.function.name, content: `Error (${error.errorType}): ${error.message}`, isError: true, outcome: 'error', errorType: error.errorType })
    }
    const mode = approvals[toolKey(tool.serverId, tool.tool)] ?? 'ask'
    const denied = (why: string): ToolResult => ({ toolCallId: call.id, serverId: tool.serverId, tool: tool.tool, content: why, isError: true, outcome: 'denied' })
    if (mode === 'never') return finish(denied(`The user does not allow ${tool.tool}. Do not call it again; answer without it.`))
    if (mode === 'ask' && !ctx.autoApprove && !tool.preApproved) {
      const request = { messageId: ctx.messageId, callId: call.id, serverId: tool.serverId, serverName: tool.serverName, tool: tool.tool, arguments: pretty(call.function.arguments) }
      push({ type: 'tool_approval', data: request })
      const decision = await service.waitForApproval(request, ctx.signal)
      if (ctx.signal.aborted) return finish(denied('The user stopped the reply before this tool ran.'))
      if (decision === 'deny' || decision === 'never') return finish(denied(`The user declined to run ${tool.tool}. Answer without it, or ask the user.`))
    }
    push({ type: 'tool_running', data: { messageId: ctx.messageId, callId: call.id } })
    const { result, citations: found } = await service.execute(tool, call, {
      messageId: ctx.messageId,
      signal: ctx.signal,
      ...(ctx.autoApprove ? { autoApprove: true } : {}),
      ...(ctx.model ? { model: ctx.model } : {}),
      ...(ctx.conversationId ? { conversationId: ctx.conversationId } : {}),
      onProgress: (p) => push({ type: 'tool_progress', data: { messageId: ctx.messageId, callId: call.id, ...p } }),
      // A server's sampling approval or question shows while its call runs.
      onEvent: push
    })
    if (found) citations.push(...found)
    // A call cut short by the user's Stop is stopped, not failed (the model still reads why).
    finish(ctx.signal.aborted && result.isError ? { ...result, outcome: 'stopped' } : result)
  }

  let settled = false
  const all = Promise.allSettled(calls.map((call, i) => runOne(call, i))).then(() => {
    settled = true
    wake?.()
  })
  while (!settled || queue.length) {
    if (queue.length) {
      yield queue.shift()!
      continue
    }
    await new Promise<void>((resolve) => (wake = resolve))
    wake = undefined
  }
  await all
  // A call that threw outside execute (a bug) still gets a result: providers reject unanswered calls.
  calls.forEach((call, i) => {
    results[i] ??= { toolCallId: call.id, content: 'Error: the tool did not return a result.', isError: true, outcome: 'error', errorType: 'PluginServerError' }
  })
  return { results, citations }
}

/**
 * The history sent back: one tool message per call (missing ones answered). With `vision` (the
 * model sees images) a result's images go along as image parts; without, the text names them.
 */
export function toolTurnMessages(calls: readonly ToolCall[], results: readonly ToolResult[] | undefined, options: { vision?: boolean } = {}): ChatMessage[] {
  const byId = new Map((results ?? []).map((r) => [r.toolCallId, r]))
  return calls.map((call) => {
    const result = byId.get(call.id)
    const text = result?.content ?? 'Error: the app stopped before this tool finished.'
    const images = options.vision ? (result?.parts ?? []).filter((p) => p.type === 'image') : []
    return {
      role: 'tool' as const,
      tool_call_id: call.id,
      name: call.function.name,
      content: images.length ? [{ type: 'text' as const, text }, ...images.map((p) => ({ type: 'image_url' as const, image_url: { url: `data:${p.mimeType};base64,${p.data}` } }))] : text
    }
  })
}

/** An assistant message of the tool loop as the provider expects it back: text, calls, signed thinking. */
export function assistantTurn(m: Message): ChatMessage {
  const msg: ChatMessage = { role: 'assistant', content: messageText(m.content) }
  if (m.toolCalls?.length) msg.tool_calls = m.toolCalls.map((c) => ({ id: c.id, type: c.type || 'function', function: { ...c.function }, ...(c.thoughtSignature ? { thoughtSignature: c.thoughtSignature } : {}) }))
  if (m.reasoning?.signature) msg.reasoning = { content: m.reasoning.text, signature: m.reasoning.signature }
  return msg
}
