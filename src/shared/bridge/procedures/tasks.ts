import { z } from 'zod'
import { call } from '../define'
import type { ActiveImageTask } from '../../images/image-task'

/**
 * Background work is one abstraction: every long-running thing the core owns —
 * a chat reply, an image task, a model pull, a knowledge base being indexed — is a stream of
 * the core's hub registered as a task with a kind and what a screen needs to show it. One
 * procedure lists them; the renderer follows any of them by its id (the stream id) with one
 * helper (`src/renderer/bridge/follow-task.ts`).
 */
export interface TaskMetas {
  /** A reply (and its tool steps); `messageId` is the message streaming now. */
  chat: { conversationId: string; messageId: string }
  /** An image task; `state` is its latest state. */
  image: Omit<ActiveImageTask, 'streamId'>
  /** An Ollama pull; its events are the pull's snapshots. */
  pull: { pullId: string; model: string; baseUrl: string }
  /** Indexing of one knowledge base (events: its files' stages). */
  knowledge: { kbId: string }
  /** A model library download; its events are the download's snapshots. */
  download: { downloadId: string; ref: string }
}

export type TaskKind = keyof TaskMetas
export const TASK_KINDS = ['chat', 'image', 'pull', 'knowledge', 'download'] as const satisfies readonly TaskKind[]

/** The stream a task of each kind is followed as (the events and result the follower gets). */
export const TASK_STREAMS = {
  chat: 'chat.send',
  image: 'images.generate',
  pull: 'local.pull.watch',
  download: 'models.download.watch'
} as const satisfies Partial<Record<TaskKind, string>>
export type FollowableTaskKind = keyof typeof TASK_STREAMS

export type ActiveTask<K extends TaskKind = TaskKind> = {
  [P in K]: {
    /** The hub's stream id: attach to it to follow the task. */
    id: string
    kind: P
    meta: TaskMetas[P]
    startedAt: number
  }
}[K]

export const taskProcedures = {
  /** Tasks still running (of one kind, or all), oldest first: a reloaded window re-follows them. */
  'tasks.active': call<ActiveTask[]>()(z.object({ kind: z.enum(TASK_KINDS).optional() }).strict())
} as const
