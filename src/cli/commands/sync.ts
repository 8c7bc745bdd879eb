import type { CliCommand, CliIO } from '../command'
import { parseFlags } from '../command'
import { dataDirFrom } from '../data-dir'
import { withCore } from '../open-core'
import type { SyncStatus } from '../../shared/bridge/procedures/sync'
import { transferMegabytes } from '../../shared/sync/transfer'

const USAGE = `switchboard sync <command> [--data-dir DIR] [--json]
  sync status     the state, the store, changes waiting, the last error and its fix
  sync now        sends and receives now; exits 0 when synced, 1 when not
  sync devices    the devices that use the same store, with when each was last seen
Sync is set up in Settings → Sync (a store and a passphrase).`

const when = (ms: number | undefined) => (ms ? new Date(ms).toLocaleString() : 'never')

function describe(status: SyncStatus): string {
  const lines: string[] = []
  const store = status.store
  const where = !store ? '' : store.kind === 'folder' ? store.path : store.kind === 's3' ? `s3://${store.bucket}/${store.prefix ?? ''}` : store.kind === 'webdav' ? store.url : `postgres://${store.user}@${store.host}:${store.port}/${store.database}`
  const mb = status.state === 'syncing' && status.transfer && status.transfer.total > 0 ? transferMegabytes(status.transfer) : undefined
  const transfer = mb ? `, history ${mb.done} of ${mb.total} MB` : ''
  lines.push(`State: ${status.state}${status.state === 'syncing' && status.syncingChanges ? ` (${status.syncingChanges} changes${transfer})` : ''}`)
  if (store) lines.push(`Store: ${store.kind} ${where}`)
  lines.push(`This device: ${status.deviceName}${status.deviceId ? ` (${status.deviceId})` : ''}`)
  lines.push(`Changes waiting: ${status.pendingChanges}`)
  if (store) lines.push(`Last synced: ${when(status.lastSyncedAt)}`)
  if (status.nextRetryAt) lines.push(`Next try: ${when(status.nextRetryAt)}`)
  if (status.lastMerge && (status.lastMerge.conflicts || status.lastMerge.recovered))
    lines.push(`Last merge: ${status.lastMerge.applied} applied, ${status.lastMerge.conflicts} edited on two devices (the later kept), ${status.lastMerge.recovered} restored`)
  if (status.error) lines.push(`Error: ${status.error.message}${status.error.fix ? `\nFix: ${status.error.fix}` : ''}`)
  if (status.state === 'off') lines.push('Set up sync in Settings → Sync.')
  return lines.join('\n')
}

/** `switchboard sync`: the sync status, a round now, the devices; set-up stays in the app. */
export const syncCommand: CliCommand = {
  name: 'sync',
  summary: 'Sync with your other devices: status, sync now, devices',
  usage: USAGE,
  async run(args: string[], io: CliIO): Promise<number> {
    const { flags, positionals } = parseFlags(args, { booleans: ['json'], strings: ['data-dir'] })
    const [sub] = positionals
    if (!sub || !['status', 'now', 'devices'].includes(sub) || positionals.length > 1) {
      io.stderr.write(`Usage: ${USAGE}\n`)
      return 2
    }
    const json = flags.get('json') === true
    const dataDir = dataDirFrom(flags, io.env)
    return withCore(io, { dataDir, command: 'sync' }, async (core, client) => {
      try {
        await core.services().sync.ready()
        if (sub === 'devices') {
          const devices = await client.call('sync.devices', {})
          if (!devices.ok) throw new Error(devices.error.message)
          if (json) io.stdout.write(`${JSON.stringify(devices.value)}\n`)
          else if (devices.value.length === 0) io.stdout.write('No devices: sync is not set up here, or the store has not been reached yet.\n')
          else for (const d of devices.value) io.stdout.write(`${d.current ? '*' : ' '} ${d.name}  ${d.id}  last seen ${when(d.lastSeenAt)}\n`)
          return 0
        }
        const result = sub === 'now' ? await client.call('sync.now', {}) : await client.call('sync.status', {})
        if (!result.ok) {
          io.stderr.write(`${result.error.message}\n`)
          return 1
        }
        io.stdout.write(json ? `${JSON.stringify(result.value)}\n` : `${describe(result.value)}\n`)
        return sub === 'now' && result.value.state !== 'idle' ? 1 : 0
      } catch (error) {
        io.stderr.write(`${(error as Error).message}\n`)
        return 1
      }
    })
  }
}
