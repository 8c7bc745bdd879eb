import { create } from 'zustand'
import type { AppError } from '../../../shared/errors/app-error'
import { isFinalPullPhase, type PullSnapshot } from '../../../shared/local/pull-progress'
import { bridge } from '../../stores/app-store'
import { followRunningTasks, followTask } from '../../bridge/follow-task'

/**
 * Model pulls as the renderer sees them. The core owns the pulls; this store follows each
 * one over the bridge (outside React), so a pull keeps showing progress after its page is
 * closed. The sidebar can show `runningPulls()`.
 */
interface PullsState {
  pulls: Record<string, PullSnapshot>
  /** Order of appearance, newest first. */
  order: string[]
  lastError?: AppError
  start(model: string, options?: { insecure?: boolean; baseUrl?: string }): Promise<PullSnapshot | undefined>
  cancel(id: string): Promise<void>
  dismiss(id: string): Promise<void>
  /** Pick up pulls the core already runs (after a reload); safe to call again. */
  sync(): Promise<void>
}

const watching = new Set<string>()
const finishedListeners = new Set<(snap: PullSnapshot) => void>()

/** Called when a pull ends (the page reloads its model list on success). */
export const onPullFinished = (listener: (snap: PullSnapshot) => void) => {
  finishedListeners.add(listener)
  return () => finishedListeners.delete(listener)
}

function put(snap: PullSnapshot) {
  usePulls.setState((s) => ({
    pulls: { ...s.pulls, [snap.id]: snap },
    order: s.order.includes(snap.id) ? s.order : [snap.id, ...s.order]
  }))
}

/** Follows a pull's task (its events are the pull's snapshots). */
function follow(id: string) {
  if (watching.has(id)) return
  watching.add(id)
  followTask(
    'pull',
    id,
    {
      onEvent: (snap) => {
        put(snap)
        if (isFinalPullPhase(snap.phase)) for (const listener of finishedListeners) listener(snap)
      },
      onEnd: () => watching.delete(id),
      onRefused: () => watching.delete(id)
    }
  )
}

export const usePulls = create<PullsState>()((set, get) => ({
  pulls: {},
  order: [],
  async start(model, options = {}) {
    const result = await bridge().call('local.pull.start', { model, ...options })
    if (!result.ok) {
      set({ lastError: result.error })
      return undefined
    }
    set({ lastError: undefined })
    // A new pull of the same model (a resume) replaces the cards of its finished attempts.
    const stale = get().order.filter((id) => {
      const old = get().pulls[id]
      return id !== result.value.id && old?.model === result.value.model && isFinalPullPhase(old.phase)
    })
    // Gone from the list at once, not after the round trip: two cards of one model never show.
    if (stale.length > 0) {
      const pulls = { ...get().pulls }
      for (const id of stale) delete pulls[id]
      set({ pulls, order: get().order.filter((o) => !stale.includes(o)) })
    }
    for (const id of stale) void get().dismiss(id)
    const { taskId, ...snapshot } = result.value
    put(snapshot)
    follow(taskId)
    return snapshot
  },
  async cancel(id) {
    await bridge().call('local.pull.cancel', { id })
  },
  async dismiss(id) {
    await bridge().call('local.pull.dismiss', { id })
    const { [id]: _gone, ...rest } = get().pulls
    set({ pulls: rest, order: get().order.filter((o) => o !== id) })
  },
  async sync() {
    await followRunningTasks('pull', (task) => follow(task.id))
  }
}))

/** Pulls still running, for the sidebar. */
export const runningPulls = (state: PullsState): PullSnapshot[] =>
  state.order.map((id) => state.pulls[id]).filter((p): p is PullSnapshot => p !== undefined && !isFinalPullPhase(p.phase))
