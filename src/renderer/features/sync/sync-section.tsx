import * as Dialog from '@radix-ui/react-dialog'
import { useEffect, useRef, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Laptop, Pause, Play, RefreshCw, Unplug } from 'lucide-react'
import type { SyncScope, SyncStatus } from '../../../shared/bridge/procedures/sync'
import { bridge, useApp } from '../../stores/app-store'
import { useRouter } from '../../stores/router-store'
import { storeAddress } from './sync-fields'
import { problemOf, SyncProblem, type Problem } from './sync-problem'
import { buttonClass, inputClass, primaryClass, ScopeFields, SyncSetupForm } from './sync-setup-form'
import { mergePhrases, relativeTime, statusPhrase, transferPercent, type Phrase } from './sync-status-text'
import { applySyncStatus, loadSyncStatus, useSync, watchSync } from './sync-store'
import { ForgetDevice } from './sync-forget-device'
import { SyncReplacedEdits } from './sync-replaced-edits'
import { ProgressBar } from '../../components/progress-bar'

/** A clock for relative times: every 30 s, every second while a retry counts down. */
function useNow(fast: boolean): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    setNow(Date.now())
    const timer = setInterval(() => setNow(Date.now()), fast ? 1000 : 30_000)
    return () => clearInterval(timer)
  }, [fast])
  return now
}

type Act = (call: () => Promise<{ ok: true; value: SyncStatus } | { ok: false; error: { errorType: string; message: string } }>) => Promise<boolean>

/** Sync as set up: state, Sync now, Pause, the passphrase when locked, the last merge, devices, what is synced, Disconnect. */
function SyncConnected({ status, readOnly, onChangeStore }: { status: SyncStatus; readOnly: boolean; onChangeStore(): void }) {
  const { t } = useTranslation()
  const now = useNow(status.state === 'offline')
  const [problem, setProblem] = useState<Problem>()
  const [busy, setBusy] = useState(false)
  const [passphrase, setPassphrase] = useState('')
  const [name, setName] = useState(status.deviceName)
  const [confirmOpen, setConfirmOpen] = useState(false)
  useEffect(() => setName(status.deviceName), [status.deviceName])
  const say = (p: Phrase) => t(p.key, p.values ?? {})

  const act: Act = async (call) => {
    setBusy(true)
    setProblem(undefined)
    const r = await call()
    setBusy(false)
    if (!r.ok) {
      setProblem(problemOf(r.error))
      return false
    }
    applySyncStatus(r.value)
    return true
  }
  const unlock = async (event: FormEvent) => {
    event.preventDefault()
    if (await act(() => bridge().call('sync.unlock', { passphrase }))) setPassphrase('')
  }
  const rename = async (event: FormEvent) => {
    event.preventDefault()
    const next = name.trim()
    if (next && next !== status.deviceName) await act(() => bridge().call('sync.update', { deviceName: next }))
  }
  const setScope = (key: keyof SyncScope, value: boolean) => {
    // Shown at once; the core's answer follows (and an error puts back what it holds).
    applySyncStatus({ ...status, scope: { ...status.scope, [key]: value } })
    void act(() => bridge().call('sync.update', { scope: { [key]: value } })).then((done) => (done ? undefined : loadSyncStatus()))
  }

  const phrase = statusPhrase(status, now)
  const paused = status.state === 'paused'
  const locked = status.state === 'locked'
  return (
    <div className="space-y-5">
      <div className="space-y-1 rounded-md border border-zinc-200 p-3 dark:border-zinc-800" data-testid="sync-overview">
        <p className="text-sm font-medium" data-testid="sync-state" data-state={status.state} aria-live="polite">
          {phrase ? say(phrase) : t('sync.status.off')}
        </p>
        {status.state === 'syncing' && status.transfer && status.transfer.total > 0 && (
          <ProgressBar
            percent={transferPercent(status.transfer)}
            label={t('sync.transfer')}
            className="h-1.5 w-full max-w-sm rounded"
            fill="bg-accent transition-[width]"
            testId="sync-transfer"
          />
        )}
        <p className="text-xs text-zinc-500 dark:text-zinc-400" data-testid="sync-last-synced">
          {status.lastSyncedAt ? t('sync.lastSynced', { when: say(relativeTime(status.lastSyncedAt, now)) }) : t('sync.neverSynced')}
        </p>
        {status.store && (
          <p className="truncate text-xs text-zinc-500 dark:text-zinc-400" data-testid="sync-store-summary" title={storeAddress(status.store)}>
            {t('sync.storeSummary', { kind: t(`sync.kinds.${status.store.kind}`), address: storeAddress(status.store) })}
          </p>
        )}
      </div>
      {status.error && <SyncProblem problem={status.error} testId="sync-status-error" />}
      {status.error?.code === 'SyncDeviceForgotten' && (
        <button type="button" className={primaryClass} disabled={readOnly || busy} onClick={() => void act(() => bridge().call('sync.rejoin', {}))} data-testid="sync-rejoin">
          {t('sync.rejoin')}
        </button>
      )}

      {locked && (
        <form className="space-y-2" onSubmit={(e) => void unlock(e)} data-testid="sync-unlock-form">
          <label className="block max-w-sm text-sm font-medium" htmlFor="sync-unlock-passphrase">
            {t('sync.passphrase')}
            <input id="sync-unlock-passphrase" className={inputClass} type="password" maxLength={1000} value={passphrase} onChange={(e) => setPassphrase(e.target.value)} autoComplete="current-password" aria-describedby="sync-unlock-hint" disabled={readOnly} data-testid="sync-unlock-passphrase" />
            <span id="sync-unlock-hint" className="mt-0.5 block text-xs font-normal text-zinc-500 dark:text-zinc-400">
              {t('sync.unlockHint')}
            </span>
          </label>
          <button type="submit" className={primaryClass} disabled={readOnly || busy || !passphrase} data-testid="sync-unlock">
            {t('sync.unlock')}
          </button>
        </form>
      )}

      <div className="flex flex-wrap gap-2">
        <button type="button" className={buttonClass} disabled={readOnly || busy || paused || locked} onClick={() => void act(() => bridge().call('sync.now', {}))} data-testid="sync-now">
          <RefreshCw aria-hidden size={14} className={status.state === 'syncing' ? 'motion-safe:animate-spin' : ''} /> {t('sync.now')}
        </button>
        <button type="button" className={buttonClass} disabled={readOnly || busy} onClick={() => void act(() => bridge().call('sync.update', { paused: !paused }))} aria-pressed={paused} data-testid="sync-pause">
          {paused ? <Play aria-hidden size={14} /> : <Pause aria-hidden size={14} />} {paused ? t('sync.resume') : t('sync.pause')}
        </button>
        <button type="button" className={buttonClass} disabled={readOnly || busy} onClick={onChangeStore} data-testid="sync-change-store">
          {t('sync.changeStore')}
        </button>
        <Dialog.Root open={confirmOpen} onOpenChange={setConfirmOpen}>
          <Dialog.Trigger asChild>
            <button type="button" className={`${buttonClass} text-red-700 dark:text-red-400`} disabled={readOnly || busy} data-testid="sync-disconnect">
              <Unplug aria-hidden size={14} /> {t('sync.disconnect')}
            </button>
          </Dialog.Trigger>
          <Dialog.Portal>
            <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
            <Dialog.Content className="fixed top-1/2 left-1/2 z-50 w-[min(28rem,calc(100vw-2rem))] -translate-x-1/2 -translate-y-1/2 space-y-3 rounded-lg border border-zinc-200 bg-white p-5 shadow-xl dark:border-zinc-800 dark:bg-zinc-900" data-testid="sync-disconnect-dialog">
              <Dialog.Title className="text-base font-semibold">{t('sync.disconnectTitle')}</Dialog.Title>
              <Dialog.Description className="text-sm text-zinc-600 dark:text-zinc-300">{t('sync.disconnectBody')}</Dialog.Description>
              <div className="flex justify-end gap-2">
                <Dialog.Close asChild>
                  <button type="button" className={buttonClass} data-testid="sync-disconnect-cancel">
                    {t('sync.cancel')}
                  </button>
                </Dialog.Close>
                <button
                  type="button"
                  className="inline-flex items-center gap-1.5 rounded-md bg-red-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-red-700 disabled:opacity-50"
                  disabled={busy}
                  onClick={() => void act(() => bridge().call('sync.disconnect', {})).then((done) => done && setConfirmOpen(false))}
                  data-testid="sync-disconnect-confirm"
                >
                  {t('sync.disconnectConfirm')}
                </button>
              </div>
            </Dialog.Content>
          </Dialog.Portal>
        </Dialog.Root>
      </div>
      {problem && <SyncProblem problem={problem} testId="sync-action-error" />}

      {status.lastMerge && (
        <div className="space-y-0.5 text-sm" data-testid="sync-merge">
          <p>
            <span className="font-medium">{t('sync.merge.title')}:</span> {mergePhrases(status.lastMerge).map(say).join(', ')}
          </p>
          <p className="text-xs text-zinc-500 dark:text-zinc-400">{t('sync.merge.note')}</p>
        </div>
      )}
      <SyncReplacedEdits mergedAt={status.lastMerge?.at} now={now} />

      <form className="flex max-w-md items-end gap-2" onSubmit={(e) => void rename(e)}>
        <label className="block flex-1 text-sm font-medium" htmlFor="sync-device-name">
          {t('sync.deviceName')}
          <input id="sync-device-name" className={inputClass} value={name} maxLength={100} onChange={(e) => setName(e.target.value)} disabled={readOnly} data-testid="sync-device-name" />
        </label>
        <button type="submit" className={buttonClass} disabled={readOnly || busy || !name.trim() || name.trim() === status.deviceName} data-testid="sync-device-name-save">
          {t('sync.saveName')}
        </button>
      </form>

      <div className="space-y-1">
        <h3 className="text-sm font-medium">{t('sync.devices')}</h3>
        <ul className="divide-y divide-zinc-200 text-sm dark:divide-zinc-800" data-testid="sync-devices">
          {status.devices.length === 0 && <li className="py-2 text-zinc-500">{t('sync.noDevices')}</li>}
          {status.devices.map((device) => (
            <li key={device.id} className="flex items-center gap-2 py-2" data-testid="sync-device" data-current={device.current || undefined}>
              <Laptop aria-hidden size={14} className="shrink-0 text-zinc-500" />
              <span className="truncate font-medium">{device.name}</span>
              {device.current && <span className="rounded bg-zinc-100 px-1.5 text-xs text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300">{t('sync.thisDevice')}</span>}
              <span className="flex-1" />
              <span className="shrink-0 text-xs text-zinc-500">{t('sync.lastSeen', { when: say(relativeTime(device.lastSeenAt, now)) })}</span>
              {!device.current && <ForgetDevice device={device} disabled={readOnly || locked} onForgotten={(devices) => applySyncStatus({ ...status, devices })} />}
            </li>
          ))}
        </ul>
      </div>

      <ScopeFields scope={status.scope} onChange={setScope} disabled={readOnly || busy} />
    </div>
  )
}

/** Settings → Sync: set up (store, test, passphrase, what is synced) or, once set up, follow and steer it. */
export function SyncSection() {
  const { t } = useTranslation()
  const status = useSync((s) => s.status)
  const passwordRequired = useApp((s) => s.info?.passwordRequired ?? false)
  const linked = useRouter((s) => s.route.name === 'settings' && s.route.params[0] === 'sync')
  const [changing, setChanging] = useState(false)
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    void loadSyncStatus()
    watchSync()
  }, [])
  // Opened from the sidebar (#/settings/sync): bring the section into view once it has its content.
  const loaded = status !== undefined
  useEffect(() => {
    if (!linked || !loaded) return
    document.getElementById('settings-sync')?.scrollIntoView({ block: 'start' })
    heading.current?.focus({ preventScroll: true })
  }, [linked, loaded])

  const readOnly = status ? !status.canChange : true
  const setUp = status !== undefined && status.state !== 'off'
  return (
    <section className="space-y-4" data-testid="sync-section" aria-labelledby="sync-title">
      <h2 id="sync-title" ref={heading} tabIndex={-1} className="text-sm font-semibold tracking-wide text-zinc-500 uppercase outline-none">
        {t('sync.title')}
      </h2>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('sync.intro')}</p>
      {status && readOnly && (
        <p className="text-sm text-amber-700 dark:text-amber-400" data-testid="sync-read-only">
          {passwordRequired ? t('sync.readOnlyPassword') : t('sync.readOnly')}
        </p>
      )}
      {!status ? (
        <p className="text-sm text-zinc-500" role="status">
          {t('page.loading')}
        </p>
      ) : setUp && !changing ? (
        <SyncConnected status={status} readOnly={readOnly} onChangeStore={() => setChanging(true)} />
      ) : (
        <SyncSetupForm key={status.store ? 'change' : 'new'} status={status} readOnly={readOnly} onCancel={setUp ? () => setChanging(false) : undefined} />
      )}
    </section>
  )
}
