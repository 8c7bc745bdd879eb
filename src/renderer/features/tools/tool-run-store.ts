import { create } from 'zustand'
import type { ChatStreamEvent } from '../../../shared/bridge/procedures/chat'
import type { ToolApprovalDecision, ToolApprovalRequest } from '../../../shared/tools/types'
import { bridge } from '../../stores/app-store'

/** Live state of tool calls in replies: approval cards waiting, calls running, their progress. */
interface ToolRunState {
  /** By `<messageId>:<callId>`. */
  approvals: Record<string, ToolApprovalRequest>
  running: Record<string, true>
  progress: Record<string, { progress: number; total?: number; message?: string }>
}

export const useToolRuns = create<ToolRunState>()(() => ({ approvals: {}, running: {}, progress: {} }))

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
      const key = runKey(event.data.messageId, event.data.callId)
      useToolRuns.setState((s) => ({ approvals: { ...s.approvals, [key]: event.data } }))
      return true
    }
    case 'tool_running': {
      const key = runKey(event.data.messageId, event.data.callId)
      useToolRuns.setState((s) => ({ approvals: without(s.approvals, key), running: { ...s.running, [key]: true } }))
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
      useToolRuns.setState((s) => ({ approvals: drop(s.approvals), running: drop(s.running), progress: drop(s.progress) }))
      return false
    }
    default:
      return false
  }
}

/** The user's answer at an approval card. */
export async function answerApproval(request: ToolApprovalRequest, decision: ToolApprovalDecision): Promise<void> {
  const key = runKey(request.messageId, request.callId)
  useToolRuns.setState((s) => ({ approvals: without(s.approvals, key) }))
  await bridge().call('tools.answer', { messageId: request.messageId, callId: request.callId, decision })
}

/** Cards still waiting in the core (a reloaded window shows them again). */
export async function loadPendingApprovals(): Promise<void> {
  const pending = await bridge().call('tools.pending', {})
  if (!pending.ok) return
  useToolRuns.setState((s) => ({ approvals: { ...s.approvals, ...Object.fromEntries(pending.value.map((r) => [runKey(r.messageId, r.callId), r])) } }))
}
