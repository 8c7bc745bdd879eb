import type { Contract } from '../../../shared/bridge/contract'
import type { Implementation } from '../router'
import type { StreamHub } from '../stream-hub'

type TaskHandlers = Pick<Implementation<Contract>, 'tasks.active'>

/** Background work is listed from the hub itself: it answers in every start-up state. */
export function taskHandlers(hub: StreamHub): TaskHandlers {
  return {
    'tasks.active': ({ kind }) => hub.tasks(kind)
  }
}
