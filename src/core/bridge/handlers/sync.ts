import type { Contract } from '../../../shared/bridge/contract'
import type { SyncStatus } from '../../../shared/bridge/procedures/sync'
import { AppErrorException } from '../../../shared/errors/app-error'
import type { CoreContext } from '../../context'
import type { Implementation } from '../router'

type SyncHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `sync.${string}`>>

// Placeholder until the sync service lands: sync is off and cannot be set up yet.
const off = (): SyncStatus => ({
  state: 'off',
  scope: { conversations: true, agents: true, settings: true, images: true, apiKeys: false },
  deviceId: '',
  deviceName: '',
  pendingChanges: 0,
  devices: [],
  canChange: false
})
const notYet = () => new AppErrorException({ errorType: 'SyncUnavailable', status: 501, message: 'Sync is not available in this build.' })

export function syncHandlers(_ctx: CoreContext): SyncHandlers {
  return {
    'sync.status': () => off(),
    'sync.watch': async function* () {
      yield off()
    },
    'sync.test': () => Promise.reject(notYet()),
    'sync.setup': () => Promise.reject(notYet()),
    'sync.update': () => Promise.reject(notYet()),
    'sync.unlock': () => Promise.reject(notYet()),
    'sync.now': () => Promise.reject(notYet()),
    'sync.devices': () => [],
    'sync.disconnect': () => off()
  }
}
