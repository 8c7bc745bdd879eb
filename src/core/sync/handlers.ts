import type { Contract } from '../../shared/bridge/contract'
import type { SyncService } from './sync-service'
import type { Implementation } from '../bridge/router'

type SyncHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `sync.${string}`>>

export function syncHandlers(sync: () => SyncService): SyncHandlers {
  return {
    'sync.status': () => sync().status(),
    'sync.watch': (_input, { signal }) => sync().watch(signal),
    'sync.test': ({ store, secret }) => sync().test(store, secret),
    'sync.setup': (input) => sync().setup(input),
    'sync.update': (input) => sync().update(input),
    'sync.unlock': ({ passphrase }) => sync().unlock(passphrase),
    'sync.now': () => sync().now(),
    'sync.devices': () => sync().devices(),
    'sync.forgetDevice': ({ deviceId }) => sync().forgetDevice(deviceId),
    'sync.rejoin': () => sync().rejoin(),
    'sync.replacedEdits': () => sync().replacedEdits(),
    'sync.bringBack': ({ id }) => sync().bringBack(id),
    'sync.disconnect': () => sync().disconnect()
  }
}
