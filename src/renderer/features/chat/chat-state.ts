import { create } from 'zustand'
import type { Agent, ModelParameters } from '../../../shared/data/agent'
import type { Conversation } from '../../../shared/data/conversation'
import type { AppError } from '../../../shared/errors/app-error'
import type { LiveMessage } from '../../../shared/chat/apply-event'

/** Streaming updates reach React at most this often (~50 ms). */
export const COMMIT_INTERVAL_MS = 50

interface ChatState {
  agents: Agent[]
  conversations: Conversation[]
  defaultAgentId?: string
  /** The agent whose conversations the sidebar shows and new chats use. */
  agentId?: string
  currentId?: string
  /** A message a search result pointed at: the list scrolls to it and highlights it once. */
  focusMessageId?: string
  /** Every message of the loaded conversations, all branches. */
  messages: Record<string, LiveMessage[]>
  /** Which child is shown under a parent (branch selection); absent → the newest. */
  branch: Record<string, string>
  /** Message ids of replies streaming now. */
  streaming: Record<string, true>
  /** A send that failed before any reply existed (no model, bad input…). */
  sendError?: AppError
  /** Conversations deleted but still undoable. */
  pendingDelete?: { conversation: Conversation; timer: ReturnType<typeof setTimeout> }
  /** A message deleted but still undoable, as a conversation is. */
  /** The messages hidden (a reply with its continuations), and [child, former parent] of what hung under them. */
  pendingMessageDelete?: { messages: LiveMessage[]; children: [string, string][]; timer: ReturnType<typeof setTimeout> }
  /** Composer controls chosen before the conversation exists (sent with its first message). */
  draftParameters: ModelParameters
  /** Knowledge bases chosen for a new chat before its first message (sent with it). */
  draftKnowledge: string[]
  /** Conversations whose title task (scene Summary Topic Title) runs now. */
  titling: Record<string, true>
  /** The agent settings dialog is open (for the agent the page shows; "+" opens it for the new one). */
  agentEditorOpen: boolean
}

export const useChat = create<ChatState>()(() => ({ agents: [], conversations: [], messages: {}, branch: {}, streaming: {}, draftParameters: {}, draftKnowledge: [], titling: {}, agentEditorOpen: false }))

/**
 * The entries of an id-keyed record (`branch`, `streaming`) that belong to one conversation's
 * messages, plus the root key '' of `branch`. Used with `useShallow`, a page re-renders when its
 * own entries change, not when a reply elsewhere starts or ends.
 */
export function entriesFor<T>(record: Record<string, T>, ids: ReadonlySet<string>): Record<string, T> {
  const out: Record<string, T> = {}
  for (const key in record) if (key === '' || ids.has(key)) out[key] = record[key]!
  return out
}
