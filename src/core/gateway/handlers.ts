import type { Contract } from '../../shared/bridge/contract'
import type { GatewayService } from './gateway-service'
import type { Implementation } from '../bridge/router'

type LocalApiHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `localApi.${string}`>>

export function localApiHandlers(gateway: () => GatewayService): LocalApiHandlers {
  return {
    'localApi.status': () => gateway().status(),
    'localApi.update': (input) => gateway().update(input),
    'localApi.createKey': (input) => gateway().createKey(input),
    'localApi.revokeKey': ({ id }) => gateway().revokeKey(id),
    'localApi.testAgent': ({ agent, model }) => gateway().testAgent(agent, model)
  }
}
