import type { StreamHandle, StreamHandlers } from '../../shared/bridge/client'
import type { Contract } from '../../shared/bridge/contract'
import type { EventOf, StreamResultOf } from '../../shared/bridge/define'
import { TASK_STREAMS, type ActiveTask, type FollowableTaskKind } from '../../shared/bridge/procedures/tasks'
import { bridge } from '../stores/app-store'

type TaskStream<K extends FollowableTaskKind> = Contract[(typeof TASK_STREAMS)[K]]
export type TaskHandlers<K extends FollowableTaskKind> = StreamHandlers<EventOf<TaskStream<K>>, StreamResultOf<TaskStream<K>>>

/**
 * The one way the renderer follows background work the core owns (a reply, an image task, a
 * pull): attach to the task's stream from event `from` (0: replay all, which rebuilds what a
 * reloaded page lost). Detaching leaves the task running.
 */
export function followTask<K extends FollowableTaskKind>(kind: K, taskId: string, handlers: TaskHandlers<K>, from = 0): StreamHandle {
  return bridge().attach(TASK_STREAMS[kind], taskId, handlers as never, from)
}

/** Calls `follow` for each task of `kind` the core is running now (after a reload, or from another window). */
export async function followRunningTasks<K extends FollowableTaskKind>(kind: K, follow: (task: ActiveTask<K>) => void): Promise<void> {
  const active = await bridge().call('tasks.active', { kind })
  if (!active.ok) return
  for (const task of active.value) if (task.kind === kind) follow(task as ActiveTask<K>)
}
