import type { Contract } from '../../../shared/bridge/contract'
import { notReady } from '../not-ready'
import type { Implementation } from '../router'
import type { CoreContext } from '../../context'
import type { Secrets } from '../../secrets'

type SecretHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `secrets.${string}`>>

function requireSecrets(ctx: CoreContext): Secrets {
  if (ctx.secrets) return ctx.secrets
  throw notReady(ctx, 'The keychain')
}

/** Set, delete and describe keys. There is deliberately no handler that returns a key. */
export function secretHandlers(ctx: CoreContext): SecretHandlers {
  return {
    'secrets.status': () => requireSecrets(ctx).status,
    'secrets.info': ({ name }) => requireSecrets(ctx).info(name),
    'secrets.list': ({ names }) => Promise.all(names.map((name) => requireSecrets(ctx).info(name))),
    'secrets.set': async ({ name, value }) => {
      const secrets = requireSecrets(ctx)
      const key = await secrets.set(name, value)
      return { key, status: secrets.status }
    },
    'secrets.delete': ({ name }) => requireSecrets(ctx).delete(name)
  }
}
