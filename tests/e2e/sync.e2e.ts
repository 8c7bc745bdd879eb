import { expect, test, type Page } from '@playwright/test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chatChunks, startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../fixtures/fake-openai'
import { freePort, ownServerPage, startServer, stopServer } from './own-server'
import { configureProvider, LOCKED_BASE, openApp, PASSWORD, pickModel, snap, TOKEN } from './helpers'

// Settings → Sync and the sidebar's sync status as a user meets them.
//
// Two kinds of test. The first group runs the real page against a scripted sync core: the page's
// bridge socket goes to the real server, except the sync.* procedures, which this spec answers in
// the bridge's own wire format — so every state (syncing 12 changes, offline, locked, an error with
// its fix, a merge with conflicts) can be shown on demand. The second group runs against the real
// sync core: a folder store on this machine, and two servers with their own data folders sharing it.

// ---------------------------------------------------------------- a scripted sync core on the wire

// The shape of src/shared/bridge/procedures/sync.ts's SyncStatus (the e2e project does not compile src/).
interface SyncStatus {
  state: 'off' | 'paused' | 'idle' | 'syncing' | 'offline' | 'locked' | 'error'
  store?: Record<string, unknown> & { kind: string }
  scope: Record<'conversations' | 'agents' | 'settings' | 'images' | 'apiKeys', boolean>
  deviceId: string
  deviceName: string
  pendingChanges: number
  syncingChanges?: number
  transfer?: { done: number; total: number }
  lastSyncedAt?: number
  nextRetryAt?: number
  error?: { code: string; message: string; fix?: string }
  lastMerge?: { applied: number; conflicts: number; recovered: number; at: number }
  devices: Array<{ id: string; name: string; lastSeenAt: number; current: boolean }>
  canChange: boolean
}

const SCOPE = { conversations: true, agents: true, settings: true, images: true, apiKeys: false }
const OFF: SyncStatus = { state: 'off', scope: SCOPE, deviceId: 'dev-a', deviceName: 'Work laptop', pendingChanges: 0, devices: [], canChange: true }

type Answer = { ok: true; value: unknown } | { ok: false; error: { errorType: string; message: string; status?: number } }

interface ScriptedSync {
  /** Every sync.* call the page made, in order. */
  calls: Array<{ proc: string; input: Record<string, unknown> }>
  /** Calls that went on to the real core, by procedure name. */
  forwarded: string[]
  /** How the next calls of a procedure are answered (default: the current status). */
  answer(proc: string, reply: (input: Record<string, unknown>) => Answer): void
  /** A new status, pushed to every sync.watch subscriber. */
  push(status: SyncStatus): void
}

/** The last call that acts (the page also reads the replaced edits again after each merge). */
const lastAction = (sync: ScriptedSync) => sync.calls.filter((c) => c.proc !== 'sync.replacedEdits').at(-1)

async function scriptSync(page: Page, initial: SyncStatus): Promise<ScriptedSync> {
  let status = initial
  const replies = new Map<string, (input: Record<string, unknown>) => Answer>()
  const watchers: Array<{ send(message: string): void; id: number; next: number }> = []
  const calls: ScriptedSync['calls'] = []
  const forwarded: string[] = []
  await page.routeWebSocket(/\/bridge$/, (ws) => {
    const server = ws.connectToServer()
    ws.onMessage((raw) => {
      const message = JSON.parse(String(raw)) as { t: string; id: number; proc?: string; input?: Record<string, unknown> }
      // sync.* is the script's; so is any other procedure a test gives an answer for.
      if ((message.t === 'call' || message.t === 'start') && (message.proc?.startsWith('sync.') || (message.proc !== undefined && replies.has(message.proc)))) {
        calls.push({ proc: message.proc, input: message.input ?? {} })
        if (message.t === 'start') {
          const watcher = { send: (m: string) => ws.send(m), id: message.id, next: 1 }
          watchers.push(watcher)
          ws.send(JSON.stringify({ t: 'started', id: message.id, sid: `scripted-sync-${message.id}` }))
          ws.send(JSON.stringify({ t: 'events', id: message.id, from: 0, events: [status] }))
          return
        }
        const lists: Record<string, unknown> = { 'sync.devices': status.devices, 'sync.replacedEdits': [], 'sync.bringBack': [] }
        const reply = replies.get(message.proc)?.(message.input ?? {}) ?? { ok: true, value: message.proc in lists ? lists[message.proc] : status }
        if (reply.ok && message.proc.startsWith('sync.') && message.proc !== 'sync.test' && !(message.proc in lists)) status = reply.value as SyncStatus
        ws.send(JSON.stringify({ t: 'result', id: message.id, result: reply }))
        return
      }
      if (message.t === 'call' && message.proc) forwarded.push(message.proc)
      server.send(raw)
    })
    server.onMessage((raw) => ws.send(raw))
  })
  return {
    calls,
    forwarded,
    answer: (proc, reply) => void replies.set(proc, reply),
    push(next) {
      status = next
      for (const w of watchers) w.send(JSON.stringify({ t: 'events', id: w.id, from: w.next++, events: [next] }))
    }
  }
}

const section = (page: Page) => page.getByTestId('sync-section')
const sidebar = (page: Page) => page.getByTestId('sidebar-sync')

test('the store form: each kind shows its own fields with real examples, and what is wrong is named before anything is sent', async ({ page }) => {
  const sync = await scriptSync(page, OFF)
  await openApp(page, '#/settings/sync')
  const s = section(page)
  await expect(s).toBeInViewport()
  // Off: nothing in the sidebar.
  await expect(sidebar(page)).toHaveCount(0)

  const fields = () => s.getByTestId('sync-store-fields').locator('input').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')))
  expect(await fields()).toEqual(['sync-field-path'])
  await s.getByText('S3-compatible').click()
  expect(await fields()).toEqual(['sync-field-endpoint', 'sync-field-region', 'sync-field-bucket', 'sync-field-prefix', 'sync-field-accessKeyId', 'sync-field-forcePathStyle', 'sync-secret'])
  await expect(s.getByTestId('sync-store-fields')).toContainText('r2.cloudflarestorage.com')
  await expect(s.getByTestId('sync-store-fields')).toContainText('MinIO')
  await expect(s.getByTestId('sync-secret')).toHaveAttribute('type', 'password')
  await s.getByText('WebDAV', { exact: true }).click()
  expect(await fields()).toEqual(['sync-field-url', 'sync-field-username', 'sync-secret'])
  await expect(s.getByTestId('sync-store-fields')).toContainText('remote.php/dav/files')
  await s.getByText('PostgreSQL', { exact: true }).click()
  expect(await fields()).toEqual(['sync-field-host', 'sync-field-port', 'sync-field-database', 'sync-field-user', 'sync-field-ssl', 'sync-field-schema', 'sync-secret'])
  await expect(s.getByTestId('sync-store-fields')).toContainText('supabase.co')
  await expect(s.getByTestId('sync-store-fields')).toContainText('neon.tech')

  // The kinds are one radio group: arrow keys move between them.
  await s.getByTestId('sync-kind-postgres').focus()
  await page.keyboard.press('ArrowRight')
  await expect(s.getByTestId('sync-kind-folder')).toBeChecked()
  expect(await fields()).toEqual(['sync-field-path'])

  // Checked here first, each message beside its field; nothing went to the core.
  await s.getByTestId('sync-test').click()
  await expect(s.getByTestId('sync-error-path')).toHaveText('Required.')
  await expect(s.getByTestId('sync-field-path')).toBeFocused()
  await s.getByTestId('sync-field-path').fill('Dropbox/Switchboard')
  await s.getByTestId('sync-test').click()
  await expect(s.getByTestId('sync-error-path')).toContainText('full path')
  await s.getByText('S3-compatible').click()
  await s.getByTestId('sync-field-bucket').fill('My Bucket')
  await s.getByTestId('sync-field-endpoint').fill('minio.local:9000')
  await s.getByTestId('sync-test').click()
  await expect(s.getByTestId('sync-error-endpoint')).toContainText('https://')
  await expect(s.getByTestId('sync-error-bucket')).toContainText('lowercase')
  await expect(s.getByTestId('sync-error-accessKeyId')).toHaveText('Required.')
  await expect(s.getByTestId('sync-error-secret')).toHaveText('Required for this store.')
  expect(sync.calls.filter((c) => c.proc === 'sync.test')).toEqual([])

  // Test: the core's answer, an empty store or its error with the fix.
  await s.getByText('Folder', { exact: true }).click()
  await s.getByTestId('sync-field-path').fill('/srv/sync')
  sync.answer('sync.test', () => ({ ok: true, value: { ok: true, objects: 0 } }))
  await s.getByTestId('sync-test').click()
  await expect(s.getByTestId('sync-test-ok')).toHaveText('The store answered and is empty: set up sync on it.')
  await expect.poll(() => lastAction(sync)).toEqual({ proc: 'sync.test', input: { store: { kind: 'folder', path: '/srv/sync' } } })
  sync.answer('sync.test', () => ({ ok: true, value: { ok: true, objects: 7 } }))
  await s.getByTestId('sync-test').click()
  await expect(s.getByTestId('sync-test-ok')).toContainText('7 objects in it. It already holds sync data: join it')
  sync.answer('sync.test', () => ({ ok: false, error: { errorType: 'SyncStoreUnreachable', message: 'ENOENT: no such folder /srv/sync' } }))
  await s.getByTestId('sync-test').click()
  await expect(s.getByTestId('sync-test-error')).toContainText('The sync store cannot be reached.')
  await expect(s.getByTestId('sync-test-error')).toContainText('check the address and the network')
  await expect(s.getByTestId('sync-test-error')).toContainText('ENOENT: no such folder /srv/sync')

  // The passphrase: the note, 8 characters, twice, a strength hint.
  await expect(s.getByTestId('sync-passphrase-note')).toContainText('cannot be recovered')
  await expect(s.getByTestId('sync-passphrase-note')).toContainText('every device')
  await s.getByTestId('sync-passphrase').fill('short')
  await expect(s.getByTestId('sync-strength')).toContainText('too short')
  await s.getByTestId('sync-setup').click()
  await expect(s.getByTestId('sync-passphrase-error')).toHaveText('Use at least 8 characters.')
  await s.getByTestId('sync-passphrase').fill('correct horse battery')
  await expect(s.getByTestId('sync-strength')).toHaveText('Strength: strong')
  await s.getByTestId('sync-passphrase-confirm').fill('correct horse batery')
  await s.getByTestId('sync-setup').click()
  await expect(s.getByTestId('sync-passphrase-error')).toHaveText('The two passphrases differ.')
  expect(sync.calls.filter((c) => c.proc === 'sync.setup')).toEqual([])

  // What is synced: API keys off, with why they are safe when on.
  await expect(s.getByTestId('sync-scope-conversations')).toBeChecked()
  await expect(s.getByTestId('sync-scope-apiKeys')).not.toBeChecked()
  await expect(s.getByTestId('sync-scope')).toContainText('end-to-end encrypted')
  await snap(page, 'settings-sync-setup')
})

test('set up, then follow it: the sidebar and the page say each state, a conflict reads as kept, locked asks for the passphrase, Disconnect asks first', async ({ page }) => {
  const sync = await scriptSync(page, OFF)
  await openApp(page, '#/settings/sync')
  const s = section(page)
  await s.getByTestId('sync-field-path').fill('/srv/sync')
  await s.getByTestId('sync-passphrase').fill('correct horse battery')
  await s.getByTestId('sync-passphrase-confirm').fill('correct horse battery')
  await s.getByTestId('sync-scope-images').uncheck()
  await s.getByTestId('sync-device-name-new').fill('Desk')
  const now = Date.now()
  const running: SyncStatus = {
    ...OFF,
    state: 'idle',
    store: { kind: 'folder', path: '/srv/sync' },
    scope: { ...SCOPE, images: false },
    deviceName: 'Desk',
    lastSyncedAt: now - 5 * 60_000,
    devices: [
      { id: 'dev-a', name: 'Desk', lastSeenAt: now, current: true },
      { id: 'dev-b', name: 'Phone', lastSeenAt: now - 3 * 3_600_000, current: false }
    ]
  }
  sync.answer('sync.setup', () => ({ ok: true, value: running }))
  await s.getByTestId('sync-setup').click()
  await expect.poll(() => lastAction(sync)).toEqual({
    proc: 'sync.setup',
    input: { store: { kind: 'folder', path: '/srv/sync' }, passphrase: 'correct horse battery', scope: { ...SCOPE, images: false }, deviceName: 'Desk' }
  })
  await expect(s.getByTestId('sync-state')).toHaveText('Synced')
  await expect(sidebar(page)).toHaveText('Synced')
  await expect(s.getByTestId('sync-last-synced')).toHaveText('Last synced 5 minutes ago')
  await expect(s.getByTestId('sync-store-summary')).toHaveText('Folder · /srv/sync')
  const devices = s.getByTestId('sync-device')
  await expect(devices).toHaveCount(2)
  await expect(devices.first()).toContainText('Desk')
  await expect(devices.first()).toContainText('this device')
  await expect(devices.first()).toContainText('last seen just now')
  await expect(devices.nth(1)).toContainText('Phone')
  await expect(devices.nth(1)).toContainText('last seen 3 hours ago')
  // The passphrase is not kept on the page.
  expect(await page.content()).not.toContain('correct horse battery')

  // States as they come from sync.watch.
  sync.push({ ...running, state: 'syncing', syncingChanges: 12 })
  await expect(sidebar(page)).toHaveText('Syncing 12 changes')
  await expect(s.getByTestId('sync-transfer')).toHaveCount(0)
  // A new device fetching a long history: how far, in words and as a bar.
  sync.push({ ...running, state: 'syncing', syncingChanges: 100_000, transfer: { done: 45_300_000, total: 118_100_000 } })
  await expect(sidebar(page)).toHaveText('Syncing the history: 45 of 118 MB')
  await expect(s.getByTestId('sync-transfer')).toHaveAttribute('aria-valuenow', '38.3')
  await expect(s.getByTestId('sync-transfer')).toHaveAccessibleName('History downloaded so far')
  sync.push({ ...running, state: 'syncing', syncingChanges: 100_000, transfer: { done: 118_100_000, total: 118_100_000 } })
  await expect(sidebar(page)).toHaveText('Syncing 100,000 changes')
  sync.push({ ...running, state: 'offline', nextRetryAt: Date.now() + 30_000 })
  await expect(sidebar(page)).toHaveText(/^Offline, will retry in (30|29|28) s$/)
  await expect(sidebar(page)).toHaveAttribute('data-state', 'offline')
  sync.push({ ...running, state: 'error', error: { code: 'SyncStoreAuth', message: 'S3 said: InvalidAccessKeyId', fix: 'Check the access key.' } })
  await expect(sidebar(page)).toHaveText('Sync error')
  await expect(sidebar(page)).toHaveAttribute('title', /InvalidAccessKeyId/)
  await expect(s.getByTestId('sync-status-error')).toContainText('The sync store refused the credentials.')
  await expect(s.getByTestId('sync-status-error')).toContainText('InvalidAccessKeyId')
  // The store's own fix, when it has one, stands instead of the general one (a folder has no address or network).
  sync.push({ ...running, state: 'offline', nextRetryAt: Date.now() + 30_000, error: { code: 'SyncStoreUnreachable', message: 'The sync folder is not there (ENOENT).', fix: 'Check the folder exists and its drive or share is connected.' } })
  await expect(s.getByTestId('sync-status-error')).toContainText('The sync store cannot be reached.')
  await expect(s.getByTestId('sync-status-error')).toContainText('The sync folder is not there (ENOENT).')
  await expect(s.getByTestId('sync-status-error')).toContainText('Check the folder exists and its drive or share is connected.')
  await expect(s.getByTestId('sync-status-error')).not.toContainText('check the address and the network')
  // Synced, with objects of the store refused: a warning in the sidebar, not "Synced"; the names and the fix on the page.
  sync.push({ ...running, error: { code: 'SyncTampered', message: 'Refused, not merged: segments/outsider/000000000001.seg.', fix: 'Check who can write to the store, and delete it there.' } })
  await expect(sidebar(page)).toHaveText('Synced, some changes refused')
  await expect(sidebar(page)).toHaveAttribute('title', /segments\/outsider\/000000000001\.seg.*delete it there/)
  await expect(s.getByTestId('sync-state')).toHaveText('Synced, some changes refused')
  await expect(s.getByTestId('sync-status-error')).toContainText('segments/outsider/000000000001.seg')
  // A round that merged changes from another device: the conversation list is read again.
  const listed = sync.forwarded.filter((p) => p === 'chat.sidebar').length
  const mergedAt = Date.now()
  sync.push({ ...running, lastSyncedAt: mergedAt, lastMerge: { applied: 3, conflicts: 1, recovered: 0, at: mergedAt } })
  await expect(s.getByTestId('sync-merge')).toContainText('3 changes merged, 1 edit kept from the later device, 0 recovered')
  await expect(s.getByTestId('sync-last-synced')).toHaveText('Last synced just now')
  await expect.poll(() => sync.forwarded.filter((p) => p === 'chat.sidebar').length).toBe(listed + 1)
  await expect(s.getByTestId('sync-merge')).toContainText('where you can bring it back')
  await expect(s.getByTestId('sync-status-error')).toHaveCount(0)
  await snap(page, 'settings-sync-running')

  // Pause and resume; rename; a scope change is sent as it is made.
  let current = running
  sync.answer('sync.update', (input) => {
    const scope = input['scope'] as Partial<SyncStatus['scope']> | undefined
    current = { ...current, state: input['paused'] ? 'paused' : 'idle', ...(input['deviceName'] ? { deviceName: String(input['deviceName']) } : {}), scope: { ...current.scope, ...scope } }
    return { ok: true, value: current }
  })
  await s.getByTestId('sync-pause').click()
  await expect(sidebar(page)).toHaveText('Paused')
  await expect(s.getByTestId('sync-pause')).toHaveText('Resume')
  await expect(s.getByTestId('sync-now')).toBeDisabled()
  await s.getByTestId('sync-pause').click()
  await expect.poll(() => sync.calls.filter((c) => c.proc === 'sync.update').map((c) => c.input)).toEqual([{ paused: true }, { paused: false }])
  await expect(sidebar(page)).toHaveText('Synced')
  await s.getByTestId('sync-device-name').fill('Desk at home')
  await s.getByTestId('sync-device-name').press('Enter')
  await expect.poll(() => lastAction(sync)).toEqual({ proc: 'sync.update', input: { deviceName: 'Desk at home' } })
  // Images were left out at set-up: turned on again here.
  await s.getByTestId('sync-scope-images').check()
  await expect.poll(() => lastAction(sync)).toEqual({ proc: 'sync.update', input: { scope: { images: true } } })
  await expect(s.getByTestId('sync-scope-images')).toBeChecked()
  // API keys are off until turned on, here like the rest.
  await s.getByTestId('sync-scope-apiKeys').check()
  await expect.poll(() => lastAction(sync)).toEqual({ proc: 'sync.update', input: { scope: { apiKeys: true } } })
  await expect(s.getByTestId('sync-scope-apiKeys')).toBeChecked()

  // Sync now, and its error with the fix.
  sync.answer('sync.now', () => ({ ok: false, error: { errorType: 'SyncStoreFull', message: 'ENOSPC: no space left on device' } }))
  await s.getByTestId('sync-now').click()
  await expect(s.getByTestId('sync-action-error')).toContainText('The sync store is full.')
  await expect(s.getByTestId('sync-action-error')).toContainText('your changes are kept')

  // Locked on this device: the passphrase, and a wrong one said plainly.
  sync.push({ ...running, state: 'locked' })
  await expect(sidebar(page)).toHaveText('Passphrase needed')
  sync.answer('sync.unlock', () => ({ ok: false, error: { errorType: 'SyncWrongPassphrase', message: 'wrong passphrase', status: 401 } }))
  await s.getByTestId('sync-unlock-passphrase').fill('not it at all')
  await s.getByTestId('sync-unlock').click()
  await expect(s.getByTestId('sync-action-error')).toContainText('The sync passphrase is not the one this store was set up with.')
  await expect(s.getByTestId('sync-action-error')).toContainText('nothing was merged')
  sync.answer('sync.unlock', () => ({ ok: true, value: running }))
  await s.getByTestId('sync-unlock-passphrase').fill('correct horse battery')
  await s.getByTestId('sync-unlock').press('Enter')
  await expect(s.getByTestId('sync-unlock-form')).toHaveCount(0)
  await expect(s.getByTestId('sync-action-error')).toHaveCount(0)

  // The sidebar status opens this section from another page, by keyboard too.
  await page.getByTestId('nav-chat').click()
  await sidebar(page).focus()
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('page-settings')).toBeVisible()
  await expect(section(page)).toBeInViewport()

  // Disconnect asks first; Escape keeps it.
  await s.getByTestId('sync-disconnect').click()
  const dialog = page.getByTestId('sync-disconnect-dialog')
  await expect(dialog).toContainText('keeps everything it has')
  await page.keyboard.press('Escape')
  await expect(dialog).toHaveCount(0)
  expect(sync.calls.some((c) => c.proc === 'sync.disconnect')).toBe(false)
  sync.answer('sync.disconnect', () => ({ ok: true, value: OFF }))
  await s.getByTestId('sync-disconnect').click()
  await dialog.getByTestId('sync-disconnect-confirm').click()
  await expect(dialog).toHaveCount(0)
  await expect(s.getByTestId('sync-setup-form')).toBeVisible()
  await expect(sidebar(page)).toHaveCount(0)
})

test('edits replaced by later ones are listed after a merge, and one brought back leaves the list; the others read the data again', async ({ page }) => {
  const now = Date.now()
  const running: SyncStatus = { ...OFF, state: 'idle', store: { kind: 'folder', path: '/srv/sync' }, lastSyncedAt: now, devices: [{ id: 'dev-a', name: 'Work laptop', lastSeenAt: now, current: true }] }
  const sync = await scriptSync(page, running)
  const title = { id: 7, table: 'conversations', key: 'c1', field: 'title', label: 'Trip to Porto', replaced: 'Trip to Lisbon', kept: 'Trip to Porto', keptBy: 'Phone', at: now - 2 * 60_000 }
  const theme = { id: 8, table: 'settings', key: 'theme', field: 'value', label: 'theme', replaced: '"dark"', kept: '"light"', keptBy: 'Phone', at: now - 60_000 }
  let listed: unknown[] = []
  sync.answer('sync.replacedEdits', () => ({ ok: true, value: listed }))
  sync.answer('sync.bringBack', ({ id }) => {
    listed = listed.filter((e) => (e as { id: number }).id !== id)
    return { ok: true, value: listed }
  })
  await openApp(page, '#/settings/sync')
  const s = section(page)
  await expect(s.getByTestId('sync-state')).toHaveText('Synced')
  await expect(s.getByTestId('sync-replaced')).toHaveCount(0)
  // A round merges a later edit from another device: the list is read again.
  listed = [theme, title]
  sync.push({ ...running, lastMerge: { applied: 2, conflicts: 2, recovered: 0, at: Date.now() } })
  const replaced = s.getByTestId('sync-replaced')
  await expect(replaced.locator('summary')).toHaveText('2 edits of yours were replaced by later ones')
  await replaced.locator('summary').press('Enter')
  const first = replaced.getByTestId('sync-replaced-edit').nth(1)
  await expect(first).toContainText('Conversation title · “Trip to Porto”')
  await expect(first.getByTestId('sync-replaced-yours')).toHaveText('Yours: Trip to Lisbon')
  await expect(first.getByTestId('sync-replaced-kept')).toHaveText('Kept, from Phone: Trip to Porto')
  // A setting's stored JSON reads as its value.
  await expect(replaced.getByTestId('sync-replaced-edit').first().getByTestId('sync-replaced-yours')).toHaveText('Yours: dark')
  await snap(page, 'sync-replaced-edits')
  const reads = sync.forwarded.filter((p) => p === 'chat.sidebar').length
  await first.getByTestId('sync-bring-back').click()
  await expect(replaced.getByTestId('sync-replaced-edit')).toHaveCount(1)
  expect(sync.calls.filter((c) => c.proc === 'sync.bringBack').map((c) => c.input)).toEqual([{ id: 7 }])
  // The conversation list is read again: the title shown there is the one brought back.
  await expect.poll(() => sync.forwarded.filter((p) => p === 'chat.sidebar').length).toBeGreaterThan(reads)
  // Refused (deleted since): said, and the list read again.
  sync.answer('sync.bringBack', () => ({ ok: false, error: { errorType: 'NotFound', message: 'What that edit belonged to was deleted since; nothing was changed.', status: 404 } }))
  await replaced.getByTestId('sync-bring-back').click()
  await expect(s.getByTestId('sync-replaced-error')).toContainText('deleted since')
})

test('changing the store keeps its secret unless a new one is typed; Chinese wording; no overflow at 1024×700', async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 700 })
  const now = Date.now()
  const s3: SyncStatus = {
    ...OFF,
    state: 'syncing',
    syncingChanges: 3,
    store: { kind: 's3', endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', bucket: 'sync', accessKeyId: 'minio', forcePathStyle: true },
    lastSyncedAt: now - 60_000,
    devices: [{ id: 'dev-a', name: 'Work laptop', lastSeenAt: now, current: true }]
  }
  const sync = await scriptSync(page, s3)
  await openApp(page, '#/settings/sync')
  const s = section(page)
  await expect(sidebar(page)).toHaveText('Syncing 3 changes')
  const overflow = () => s.evaluate((el) => el.scrollWidth - el.clientWidth)
  expect(await overflow()).toBeLessThanOrEqual(0)
  await s.getByTestId('sync-change-store').click()
  await expect(s.getByTestId('sync-kind-s3')).toBeChecked()
  await expect(s.getByTestId('sync-field-bucket')).toHaveValue('sync')
  await expect(s.getByTestId('sync-field-forcePathStyle')).toBeChecked()
  await expect(s.getByTestId('sync-secret')).toHaveValue('')
  await expect(s.getByTestId('sync-secret-saved')).toContainText('leave empty to keep it')
  expect(await overflow()).toBeLessThanOrEqual(0)
  await page.evaluate(() => document.getElementById('settings-sync')?.scrollIntoView({ block: 'start' }))
  await snap(page, 'settings-sync-change-store-1024')
  sync.answer('sync.test', () => ({ ok: true, value: { ok: true, objects: 12 } }))
  await s.getByTestId('sync-test').click()
  await expect.poll(() => lastAction(sync)).toEqual({ proc: 'sync.test', input: { store: { kind: 's3', endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', bucket: 'sync', accessKeyId: 'minio', forcePathStyle: true } } })
  await s.getByTestId('sync-cancel').click()
  await expect(s.getByTestId('sync-state')).toHaveText('Syncing 3 changes')

  await page.evaluate(() => localStorage.setItem('switchboard.language', 'zh-CN'))
  await page.reload()
  await expect(sidebar(page)).toHaveText('正在同步 3 项更改')
  await expect(section(page).getByTestId('sync-last-synced')).toHaveText(/^上次同步：\d+ 分钟前$/, { timeout: 20_000 })
  await expect(section(page).getByTestId('sync-device')).toContainText('此设备')
  await page.evaluate(() => localStorage.setItem('switchboard.language', 'en'))
})

test('restoring a backup says first, when sync is on, that newer changes from any device still come back', async ({ page }) => {
  const backup = { at: Date.now() - 86_400_000, schemaVersion: 1, reason: 'manual', size: 40_960, holds: { agents: 1, conversations: 3, messages: 12, settings: 2 } }
  const sync = await scriptSync(page, { ...OFF, state: 'idle', store: { kind: 'folder', path: '/srv/sync' }, lastSyncedAt: Date.now() })
  sync.answer('data.backups.list', () => ({ ok: true, value: [backup] }))
  await openApp(page, '#/settings')
  const item = page.getByTestId('backup-item')
  await item.getByTestId('backup-restore').click()
  await expect(item.getByTestId('backup-confirm-sync')).toHaveText(/Sync is on: .*deletions included/)
  await item.getByRole('button', { name: 'Cancel' }).click()
  // Sync off: not a word of it.
  sync.push({ ...OFF })
  await item.getByTestId('backup-restore').click()
  await expect(item.getByTestId('backup-confirm')).toContainText('a copy of your current data is kept')
  await expect(item.getByTestId('backup-confirm-sync')).toHaveCount(0)
  await item.getByRole('button', { name: 'Cancel' }).click()
  expect(sync.calls.map((c) => c.proc)).not.toContain('data.backups.restore')
})

test('browser mode with an access password shows sync read-only, with the reason', async ({ page }) => {
  await page.goto(`${LOCKED_BASE}/?token=${TOKEN}#/settings/sync`)
  await page.getByTestId('unlock-password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Unlock' }).click()
  await expect(page.getByTestId('page-settings')).toBeVisible({ timeout: 30_000 })
  const s = section(page)
  await expect(s.getByTestId('sync-read-only')).toContainText('a store is a resource of the computer that runs Switchboard')
  await expect(s.getByTestId('sync-test')).toBeDisabled()
  await expect(s.getByTestId('sync-field-path')).toBeDisabled()
  await expect(s.getByTestId('sync-setup')).toBeDisabled()
})

// ---------------------------------------------------------------- the real sync core

test.describe('against the real sync core', () => {
  test('Test on an empty folder shows the core’s answer', async ({ page }) => {
    const folder = mkdtempSync(join(tmpdir(), 'switchboard-e2e-syncstore-'))
    try {
      await openApp(page, '#/settings/sync')
      const s = section(page)
      await expect(s.getByTestId('sync-read-only')).toHaveCount(0)
      await s.getByTestId('sync-field-path').fill(folder)
      await s.getByTestId('sync-test').click()
      await expect(s.getByTestId('sync-test-ok')).toHaveText('The store answered and is empty: set up sync on it.')
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })

  let fake: FakeOpenAI
  test.beforeAll(async () => {
    fake = await startFakeOpenAI()
    fake.setDefault('/chat/completions', (req: RecordedRequest) => {
      const messages = (req.body as { messages: { content: string }[] }).messages
      return { kind: 'sse', chunks: chatChunks([`You said: ${messages.at(-1)?.content ?? ''}.`]) }
    })
  })
  test.afterAll(async () => fake?.close())

  test('two devices on one folder: set up on A, a message on A, a wrong passphrase on B is refused, the right one brings the conversation to B; A forgets B, B is told and joins again', async ({ browser }) => {
    test.setTimeout(180_000)
    const store = mkdtempSync(join(tmpdir(), 'switchboard-e2e-syncstore-'))
    const dataA = mkdtempSync(join(tmpdir(), 'switchboard-e2e-sync-a-'))
    const dataB = mkdtempSync(join(tmpdir(), 'switchboard-e2e-sync-b-'))
    const [portA, portB] = [await freePort(), await freePort()]
    const serverA = await startServer(portA, dataA)
    const serverB = await startServer(portB, dataB)
    const a = await ownServerPage(browser, portA)
    const b = await ownServerPage(browser, portB)
    try {
      // A: set up on the empty folder, then write a conversation.
      await openApp(a.page, '#/settings/sync')
      await setUpOn(a.page, store, 'a shared sync passphrase', 'setup')
      await expect(sidebar(a.page)).toHaveText(/Synced|Syncing/)
      await configureProvider(a.page, 'openai', fake.url, 'sk-e2e-sync-0123456789')
      await a.page.getByTestId('nav-chat').click()
      await a.page.getByTestId('new-chat').click()
      await pickModel(a.page, 'openai', 'gpt-4o-mini')
      await a.page.getByTestId('composer-input').fill('hello from device A')
      await a.page.getByTestId('composer-input').press('Enter')
      await expect(a.page.getByTestId('message-assistant').last()).toContainText('You said: hello from device A.')
      await expect(a.page).toHaveURL(/#\/chat\/[^/]+$/)
      const conversation = new URL(a.page.url()).hash
      await a.page.goto(`/?token=${TOKEN}#/settings/sync`)
      await section(a.page).getByTestId('sync-now').click()
      await expect(section(a.page).getByTestId('sync-state')).toHaveText('Synced', { timeout: 30_000 })

      // B: the wrong passphrase is refused and nothing is merged.
      await openApp(b.page, '#/settings/sync')
      await setUpOn(b.page, store, 'not the shared passphrase', 'join')
      const refused = section(b.page).getByTestId('sync-setup-error')
      await expect(refused).toContainText('The sync passphrase is not the one this store was set up with.')
      await expect(refused).toContainText('nothing was merged')
      await expect(sidebar(b.page)).toHaveCount(0)
      // The right one: the conversation arrives.
      await section(b.page).getByTestId('sync-passphrase').fill('a shared sync passphrase')
      await section(b.page).getByTestId('sync-setup').click()
      await expect(section(b.page).getByTestId('sync-state')).toHaveText(/Synced|Syncing/, { timeout: 30_000 })
      await expect(section(b.page).getByTestId('sync-device')).toHaveCount(2, { timeout: 30_000 })
      // The conversation list shows the chosen agent's conversations (A's agent came with it): open it by its address.
      await b.page.evaluate((hash) => (location.hash = hash), conversation)
      await expect(b.page.getByTestId('message-user').last()).toContainText('hello from device A', { timeout: 30_000 })
      await expect(b.page.getByTestId('message-assistant').last()).toContainText('You said: hello from device A.')
      await snap(b.page, 'sync-device-b')

      // A forgets B (a device gone for good): asked first, then B leaves A's list.
      await section(a.page).getByTestId('sync-now').click()
      await expect(section(a.page).getByTestId('sync-device')).toHaveCount(2, { timeout: 30_000 })
      const other = section(a.page).locator('[data-testid="sync-device"]:not([data-current])')
      await other.getByTestId('sync-forget-device').click()
      const dialog = a.page.getByTestId('sync-forget-dialog')
      await expect(dialog).toContainText('Your other devices stop keeping deletions for it')
      await snap(a.page, 'sync-forget-dialog')
      await dialog.getByTestId('sync-forget-confirm').click()
      await expect(dialog).toHaveCount(0)
      await expect(section(a.page).getByTestId('sync-device')).toHaveCount(1)
      // B, syncing again, is told what happened and how to go on; joining again lists it on A once more.
      await b.page.goto(`/?token=${TOKEN}#/settings/sync`)
      await section(b.page).getByTestId('sync-now').click()
      const told = section(b.page).getByTestId('sync-status-error')
      await expect(told).toContainText('This device was removed from sync on another device.')
      await expect(told).toContainText('what is on this device is kept')
      await snap(b.page, 'sync-device-forgotten')
      await section(b.page).getByTestId('sync-rejoin').click()
      await expect(section(b.page).getByTestId('sync-state')).toHaveText(/Synced|Syncing/, { timeout: 30_000 })
      await expect(section(b.page).getByTestId('sync-status-error')).toHaveCount(0)
      await section(a.page).getByTestId('sync-now').click()
      await expect(section(a.page).getByTestId('sync-device')).toHaveCount(2, { timeout: 30_000 })
    } finally {
      await a.context.close()
      await b.context.close()
      await stopServer(serverA)
      await stopServer(serverB)
      for (const dir of [store, dataA, dataB]) rmSync(dir, { recursive: true, force: true })
    }
  })
})

async function setUpOn(page: Page, folder: string, passphrase: string, mode: 'setup' | 'join') {
  const s = section(page)
  // Folder is the kind the form starts with.
  await expect(s.getByTestId('sync-kind-folder')).toBeChecked()
  await s.getByTestId('sync-field-path').fill(folder)
  await s.getByTestId(`sync-mode-${mode}`).check()
  await s.getByTestId('sync-passphrase').fill(passphrase)
  if (mode === 'setup') await s.getByTestId('sync-passphrase-confirm').fill(passphrase)
  await s.getByTestId('sync-setup').click()
}

// ---- servers of this spec's own, each with its own data folder

