import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import { SyncStoreError, type SyncStore } from '../../../src/core/sync/store'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { SyncStatus, SyncStoreConfig } from '../../../src/shared/bridge/procedures/sync'
import { startTestCore } from '../test-core'

/** A cheap scrypt for tests (the real cost is a fraction of a second per set-up). */
export const TEST_KDF = { N: 1024, r: 8, p: 1 }

export interface Device {
  name: string
  dataDir: string
  core: Core
  client: BridgeClient<Contract>
  /** Moves this device's wall clock (ms). */
  skew: { ms: number }
  keychain: MemoryBackend
  /** The store wrapper's switch: throw this instead of reaching the store. */
  fault: Fault
  call<K extends keyof Contract & string>(name: K, input: Parameters<BridgeClient<Contract>['call']>[1]): Promise<unknown>
  setup(store: SyncStoreConfig, passphrase?: string): Promise<SyncStatus>
  sync(): Promise<SyncStatus>
  close(): Promise<void>
  reopen(): Promise<Device>
}

/** Wraps a store so a test can make every call fail (unreachable, full) and heal it again. */
export interface Fault {
  /** Every call throws this. */
  error?: Error
  /** A segment put writes half its bytes and then fails, as a device killed mid-upload leaves it. */
  halfPut?: boolean
  /** A put of a key this returns an error for fails with it (and writes nothing). */
  putFails?: (key: string) => Error | undefined
  /** Every call waits for this first (a store that does not answer for a while). */
  hang?: Promise<void>
  /** `hang` holds only the stores opened before this many had been (a connection already made, not a new one). */
  hangOpenedBefore?: number
  /** How many stores the device has opened so far. */
  opened?: number
  /** When set, every key read is added to it. */
  gets?: string[]
  /** When set, every key written (put) is added to it. */
  puts?: string[]
  /** A put of a key this returns a promise for waits for it first (a slow upload, caught half way). */
  putWaits?: (key: string) => Promise<void> | undefined
}

export function faulty(store: SyncStore, fault: Fault): SyncStore {
  const number = (fault.opened = (fault.opened ?? 0) + 1)
  const guard =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (fault.hang && (fault.hangOpenedBefore === undefined || number < fault.hangOpenedBefore)) await fault.hang
      if (fault.error) throw fault.error
      return fn(...args)
    }
  return {
    kind: store.kind,
    test: guard(() => store.test()),
    put: guard(async (k: string, b: Uint8Array) => {
      if (fault.halfPut && k.startsWith('segments/')) {
        await store.put(k, b.subarray(0, Math.floor(b.length / 2)))
        throw new SyncStoreError('SyncStoreUnreachable', 'killed mid-upload')
      }
      await fault.putWaits?.(k)
      const failure = fault.putFails?.(k)
      if (failure) throw failure
      fault.puts?.push(k)
      return store.put(k, b)
    }),
    create: guard((k: string, b: Uint8Array) => store.create(k, b)),
    get: guard((k: string) => {
      fault.gets?.push(k)
      return store.get(k)
    }),
    list: guard((p: string) => store.list(p)),
    delete: guard((k: string) => store.delete(k)),
    // A store that pushes (PostgreSQL) keeps pushing through the wrapper.
    ...(store.watch ? { watch: (onChange: (key: string) => void) => store.watch!(onChange) } : {}),
    ...(store.takeRefused ? { takeRefused: () => store.takeRefused!() } : {}),
    close: () => store.close()
  }
}

/** A device: its own data folder and core (real store, real sync), a keychain in memory, a movable clock. */
export async function openDevice(name: string, options: { dataDir?: string; keychain?: MemoryBackend; skewMs?: number; compactAfter?: number; compactBytes?: number; compactShare?: number; compactMaxSegments?: number; imageChunk?: number; segmentBytes?: number; snapshotBacklog?: number; timings?: { pollMs?: number; localCheckMs?: number; debounceMs?: number; restoreWaitMs?: number }; /** Stands in for the store the config names (a store in memory). */ store?: () => SyncStore; /** Draws the device ids sync gives this device (the simulation: from its seed). */ newDeviceId?: () => string } = {}): Promise<Device> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), `sb-sync-${name}-`))
  const skew = { ms: options.skewMs ?? 0 }
  const fault: Fault = {}
  const keychain = options.keychain ?? new MemoryBackend()
  const { core, client } = await startTestCore(`sb-sync-${name}-`, {
    dataDir,
    secrets: { backend: keychain },
    // Rounds are driven by the tests (sync.now); the timers stay out of the way.
    sync: { kdf: TEST_KDF, clock: () => Date.now() + skew.ms, pollMs: 3_600_000, localCheckMs: 3_600_000, retryMs: 3_600_000, compactAfter: options.compactAfter ?? 10_000, compactShare: options.compactShare ?? 0, ...(options.compactBytes ? { compactBytes: options.compactBytes } : {}), ...(options.compactMaxSegments ? { compactMaxSegments: options.compactMaxSegments } : {}), ...(options.imageChunk ? { imageChunk: options.imageChunk } : {}), ...(options.segmentBytes ? { segmentBytes: options.segmentBytes } : {}), ...(options.snapshotBacklog ? { snapshotBacklog: options.snapshotBacklog } : {}), wrapStore: (store) => faulty(options.store ? options.store() : store, fault), ...(options.newDeviceId ? { newDeviceId: options.newDeviceId } : {}), ...options.timings }
  })
  const unwrap = async <T>(promise: Promise<{ ok: true; value: T } | { ok: false; error: { errorType: string; message: string } }>): Promise<T> => {
    const result = await promise
    if (!result.ok) throw Object.assign(new Error(`${result.error.errorType}: ${result.error.message}`), { errorType: result.error.errorType })
    return result.value
  }
  const device: Device = {
    name,
    dataDir,
    core,
    client,
    skew,
    keychain,
    fault,
    call: (procedure, input) => unwrap(client.call(procedure as never, input as never)),
    setup: (store, passphrase = 'correct horse battery') => unwrap(client.call('sync.setup', { store, passphrase, deviceName: name })),
    sync: () => unwrap(client.call('sync.now', {})),
    close: () => core.close(),
    async reopen() {
      await core.close()
      return openDevice(name, { ...options, dataDir, keychain, skewMs: skew.ms })
    }
  }
  return device
}

/** What a device holds, comparable across devices: conversations with their messages' text. */
export function contents(device: Device) {
  const db = device.core.services().store.db.sqlite
  // Messages' full-text indexes agree with the table (sync fills them in bulk): throws otherwise.
  db.exec(`INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1); INSERT INTO messages_trigram(messages_trigram, rank) VALUES ('integrity-check', 1);`)
  const conversations = db.prepare('SELECT id, title, pinned, agent_id FROM conversations ORDER BY id').all()
  const messages = db.prepare('SELECT id, conversation_id, role, text, status FROM messages ORDER BY id').all()
  const agents = db.prepare('SELECT id, name, system_prompt FROM agents ORDER BY id').all()
  const settings = db.prepare('SELECT key, value FROM settings ORDER BY key').all()
  return { conversations, messages, agents, settings }
}

export const text = (t: string) => [{ type: 'text' as const, text: t }]

/** Rounds until nothing moves: each device syncs twice, in turn. */
export async function converge(list: readonly Device[]): Promise<void> {
  for (let i = 0; i < 2; i++) for (const d of list) await d.sync()
}

/** A new, empty folder store. */
export const newFolderStore = () => ({ kind: 'folder' as const, path: mkdtempSync(join(tmpdir(), 'sb-sync-store-')) })

/** A moment, so the next change on another device has a later wall-clock time. */
export const later = () => new Promise((resolve) => setTimeout(resolve, 20))

/**
 * Two devices on `store`: A writes a snapshot once three segments follow the newest one; B wrote
 * four segments and is never seen again (its old segments stay in the store). A has synced and
 * written a snapshot.
 */
export async function withQuietDevice(store: SyncStoreConfig, opened: Device[]): Promise<{ a: Device; b: Device }> {
  const a = await openDevice('A', { compactAfter: 3 })
  const b = await openDevice('B', { compactAfter: 1_000 })
  opened.push(a, b)
  await a.setup(store)
  await b.setup(store)
  const services = b.core.services()
  for (let i = 0; i < 4; i++) {
    services.store.conversations.create({ agentId: services.chat.defaultAgent().id, title: `from B ${i}` })
    await b.sync()
  }
  // A sends nothing in its first round, so it leaves the snapshot to B (whose segments made it
  // due) for one round; B writes none, so A does at its second.
  await a.sync()
  await a.sync()
  return { a, b }
}
