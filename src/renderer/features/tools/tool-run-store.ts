import { create } from 'zustand'
import type { ChatStreamEvent } from '../../../shared/bridge/procedures/chat'
import type { ElicitationAnswer, ElicitationRequest, ToolApprovalDecision, ToolApprovalRequest } from '../../../shared/tools/types'
import { bridge } from '../../stores/app-store'

/** Live state of tool calls in replies: approval cards waiting, calls running, their progress. */
interface ToolRunState {
  /** By `<messageId>:<callId>`. */
  approvals: Record<string, ToolApprovalRequest>
  running: Record<string, true>
  progress: Record<string, { progress: number; total?: number; message?: string }>
  /** A running call's server asking: sampling approvals and questions, by `<messageId>:<the call's id>`. */
  samplings: Record<string, ToolApprovalRequest>
  elicitations: Record<string, ElicitationRequest>
}

export const useToolRuns = create<ToolRunState>()(() => ({ approvals: {}, running: {}, progress: {}, samplings: {}, elicitations: {} }))

export const runKey = (messageId: string, callId: string) => `${messageId}:${callId}`

const without = <T,>(record: Record<string, T>, key: string): Record<string, T> => {
  if (!(key in record)) return record
  const next = { ...record }
  delete next[key]
  return next
}

/** Applies a tool event of a reply stream (the chat store forwards them here). */
export function applyToolEvent(event: ChatStreamEvent): boolean {
  switch (event.type) {
    case 'tool_approval': {
      if (event.data.parentCallId) {
        const key = runKey(event.data.messageId, event.data.parentCallId)
        useToolRuns.setState((s) => ({ samplings: { ...s.samplings, [key]: event.data } }))
        return true
      }
      const key = runKey(event.data.messageId, event.data.callId)
      useToolRuns.setState((s) => ({ approvals: { ...s.approvals, [key]: event.data } }))
      return true
    }
    case 'tool_running': {
      const key = runKey(event.data.messageId, event.data.callId)
      useToolRuns.setState((s) => ({ approvals: without(s.approvals, key), running: { ...s.running, [key]: true } }))
      return true
    }
    case 'tool_elicitation': {
      const key = runKey(event.data.messageId, event.data.parentCallId)
      useToolRuns.setState((s) => ({ elicitations: { ...s.elicitations, [key]: event.data } }))
      return true
    }
    case 'tool_progress': {
      const key = runKey(event.data.messageId, event.data.callId)
      const { progress, total, message } = event.data
      useToolRuns.setState((s) => ({ progress: { ...s.progress, [key]: { progress, ...(total !== undefined ? { total } : {}), ...(message ? { message } : {}) } } }))
      return true
    }
    case 'tool_step': {
      const prefix = `${event.data.messageId}:`
      const drop = <T,>(r: Record<string, T>) => Object.fromEntries(Object.entries(r).filter(([k]) => !k.startsWith(prefix)))
      useToolRuns.setState((s) => ({ approvals: drop(s.approvals), running: drop(s.running), progress: drop(s.progress), samplings: drop(s.samplings), elicitations: drop(s.elicitations) }))
      return false
    }
    default:
      return false
  }
}

/** The user's answer at an approval card (a tool call, or a server's sampling request). */
export async function answerApproval(request: ToolApprovalRequest, decision: ToolApprovalDecision): Promise<void> {
  if (request.parentCallId) {
    const key = runKey(request.messageId, request.parentCallId)
    useToolRuns.setState((s) => ({ samplings: without(s.samplings, key) }))
    await bridge().call('tools.answer', { messageId: request.messageId, callId: request.callId, decision })
    return
  }
  const key = runKey(request.messageId, request.callId)
  useToolRuns.setState((s) => ({ approvals: without(s.approvals, key) }))
  await bridge().call('tools.answer', { messageId: request.messageId, callId: request.callId, decision })
}

/**
 * The user's answer to a server's question. A refusal by the core (the answer does not fit the
 * schema) keeps the form open and returns its message.
 */
export async function answerElicitation(request: ElicitationRequest, answer: ElicitationAnswer): Promise<string | undefined> {
  const result = await bridge().call('tools.answerElicitation', { messageId: request.messageId, callId: request.callId, action: answer.action, ...(answer.content ? { content: answer.content } : {}) })
  if (!result.ok) return result.error.message
  const key = runKey(request.messageId, request.parentCallId)
  useToolRuns.setState((s) => ({ elicitations: without(s.elicitations, key) }))
  return undefined
}

/** Cards and questions still waiting in the core (a reloaded window shows them again). */
export async function loadPendingApprovals(): Promise<void> {
  const [pending, questions] = await Promise.all([bridge().call('tools.pending', {}), bridge().call('tools.pendingElicitations', {})])
  if (pending.ok) {
    const calls = pending.value.filter((r) => !r.parentCallId)
    const samplings = pending.value.filter((r) => r.parentCallId)
    useToolRuns.setState((s) => ({
      approvals: { ...s.approvals, ...Object.fromEntries(calls.map((r) => [runKey(r.messageId, r.callId), r])) },
      samplings: { ...s.samplings, ...Object.fromEntries(samplings.map((r) => [runKey(r.messageId, r.parentCallId!), r])) }
    }))
  }
  if (questions.ok) useToolRuns.setState((s) => ({ elicitations: { ...s.elicitations, ...Object.fromEntries(questions.value.map((r) => [runKey(r.messageId, r.parentCallId), r])) } }))
}
