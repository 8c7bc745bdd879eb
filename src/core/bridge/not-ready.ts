import { AppErrorException } from '../../shared/errors/app-error'
import type { InitState } from '../../shared/app/init-state'

/** Drops a trailing full stop so a reason can be embedded in a sentence without doubling it. */
export const sentence = (text: string) => text.trim().replace(/[.。]+$/u, '')

/**
 * The error for a call that needs a part of the core that does not exist (yet). It says what
 * is true: start-up failed and why, or start-up is still running and at which step, never
 * "still starting" about a start-up that already gave up.
 */
export function notReady(ctx: { init: { readonly state: InitState } }, what: string): AppErrorException {
  const state = ctx.init.state
  if (state.phase === 'error') {
    return new AppErrorException({
      errorType: 'DataNotReady',
      status: 503,
      message: `${what} is not available because the local data could not be opened: ${sentence(state.detail ?? 'unknown reason')}. Fix that, then choose Retry.`
    })
  }
  if (state.phase === 'ready') {
    return new AppErrorException({ errorType: 'DataNotReady', status: 503, message: `${what} did not start; restart Switchboard.` })
  }
  const step = state.detail ? ` (${sentence(state.detail).toLowerCase()})` : ''
  return new AppErrorException({
    errorType: 'DataNotReady',
    status: 503,
    message: `Switchboard is still starting${step}, so ${what.toLowerCase()} is not available yet. Try again in a moment.`
  })
}
