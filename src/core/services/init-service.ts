import { EventEmitter } from 'node:events'
import type { InitPhase, InitState } from '../../shared/app/init-state'
import { isTerminal } from '../../shared/app/init-state'
import { toAppError } from '../bridge/to-app-error'

/** One step of start-up; it runs while the service reports `phase`. */
export interface InitStep {
  phase: Exclude<InitPhase, 'idle' | 'finished' | 'ready' | 'error'>
  run(report: (detail: string) => void): Promise<string[] | void> | string[] | void
}

/**
 * Runs start-up in the spec's order (idle → initializing → loadingDependencies → migrating →
 * finished → ready), keeps the states it went through so a late subscriber sees them all,
 * and can be retried after an error.
 */
export class InitService {
  private readonly emitter = new EventEmitter()
  private history: InitState[] = [{ phase: 'idle', at: Date.now() }]
  private running?: Promise<InitState>

  constructor(private readonly steps: InitStep[]) {
    this.emitter.setMaxListeners(0)
  }

  get state(): InitState {
    return this.history[this.history.length - 1]!
  }

  get states(): readonly InitState[] {
    return this.history
  }

  private push(phase: InitPhase, detail?: string, notices?: string[]): void {
    const state: InitState = { phase, at: Date.now() }
    if (detail) state.detail = detail
    if (notices && notices.length > 0) state.notices = notices
    this.history.push(state)
    this.emitter.emit('state', state)
  }

  start(): Promise<InitState> {
    if (this.running) return this.running
    this.running = this.run()
    return this.running
  }

  retry(): Promise<InitState> {
    if (this.state.phase !== 'error') return this.start()
    this.running = undefined
    this.history = [{ phase: 'idle', at: Date.now() }]
    return this.start()
  }

  private async run(): Promise<InitState> {
    const notices: string[] = []
    this.push('initializing')
    for (const step of this.steps) {
      if (this.state.phase !== step.phase) this.push(step.phase)
      try {
        const found = await step.run((detail) => this.push(step.phase, detail))
        if (found) notices.push(...found)
      } catch (error) {
        this.push('error', toAppError(error).message)
        return this.state
      }
    }
    this.push('finished')
    this.push('ready', undefined, notices)
    return this.state
  }

  /** Every state so far, then live ones until a terminal state. */
  async *progress(signal?: AbortSignal): AsyncGenerator<InitState, InitState> {
    const queue: InitState[] = [...this.history]
    let wake: (() => void) | undefined
    const onState = (state: InitState) => {
      queue.push(state)
      wake?.()
    }
    this.emitter.on('state', onState)
    try {
      for (;;) {
        while (queue.length > 0) {
          const state = queue.shift()!
          yield state
          if (isTerminal(state.phase) && queue.length === 0) return state
        }
        if (signal?.aborted) return this.state
        await new Promise<void>((resolve) => {
          wake = resolve
          signal?.addEventListener('abort', () => resolve(), { once: true })
        })
        wake = undefined
      }
    } finally {
      this.emitter.off('state', onState)
    }
  }
}
