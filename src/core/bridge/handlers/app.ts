import { setTimeout as delay } from 'node:timers/promises'
import type { Contract } from '../../../shared/bridge/contract'
import type { AppInfo } from '../../../shared/bridge/procedures/app'
import type { Implementation } from '../router'
import type { CoreContext } from '../../context'

type AppHandlers = Pick<Implementation<Contract>, 'app.info' | 'app.initProgress' | 'app.retryInit' | 'diag.echo' | 'diag.count'>

export function appHandlers(ctx: CoreContext): AppHandlers {
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
