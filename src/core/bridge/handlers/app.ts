import { setTimeout as delay } from 'node:timers/promises'
import type { Contract } from '../../../shared/bridge/contract'
import type { AppInfo } from '../../../shared/bridge/procedures/app'
import type { Implementation } from '../router'
import type { InitState } from '../../../shared/app/init-state'

type AppHandlers = Pick<Implementation<Contract>, 'app.info' | 'app.initProgress' | 'app.retryInit' | 'diag.echo' | 'diag.count'>

/** What the app's own procedures read: the environment and start-up (the core's context has both; the bridge sits below it). */
interface AppEnv {
  version: string
  mode: 'desktop' | 'browser' | 'test'
  access?: { password?: string } | undefined
  init: { progress(signal?: AbortSignal): AsyncGenerator<InitState, InitState>; retry(): Promise<InitState> }
}

export function appHandlers(ctx: AppEnv): AppHandlers {
  return {
    'app.info': (): AppInfo => ({
      name: 'Switchboard',
      version: ctx.version,
      mode: ctx.mode,
      platform: process.platform,
      passwordRequired: Boolean(ctx.access?.password)
    }),
    'app.initProgress': (_input, { signal }) => ctx.init.progress(signal),
    'app.retryInit': () => ctx.init.retry(),
    'diag.echo': ({ value }) => ({ value }),
    'diag.count': async function* ({ count, delayMs }, { signal }) {
      for (let n = 0; n < count; n++) {
        if (signal.aborted) break
        if (delayMs) await delay(delayMs)
        yield { n }
      }
      return { count }
    }
  }
}
