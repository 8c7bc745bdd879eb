import { useId, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { syncStoreKinds, type SyncScope, type SyncStatus, type SyncStoreKind } from '../../../shared/bridge/procedures/sync'
import { bridge } from '../../stores/app-store'
import { draftFromStore, emptyDraft, SECRET_REQUIRED, STORE_FIELDS, validatePassphrase, validateStore, type FieldErrors, type FieldSpec, type FlagField, type StoreDraft, type TextField } from './sync-fields'
import { passphraseStrength } from './sync-status-text'
import { problemOf, SyncProblem, type Problem } from './sync-problem'
import { applySyncStatus } from './sync-store'

export const inputClass = 'mt-1 block w-full rounded-md border border-zinc-300 bg-transparent px-2 py-1.5 text-sm aria-[invalid=true]:border-red-500 dark:border-zinc-700'
export const buttonClass = 'inline-flex items-center gap-1.5 rounded-md border border-zinc-300 px-3 py-1.5 text-sm hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800'
export const primaryClass = 'inline-flex items-center gap-1.5 rounded-md bg-accent px-3 py-1.5 text-sm font-medium text-white hover:opacity-90 disabled:opacity-50'
const hintClass = 'mt-0.5 block text-xs font-normal text-zinc-500 dark:text-zinc-400'
const errorClass = 'mt-0.5 block text-xs font-normal text-red-600 dark:text-red-400'

export const SCOPE_KEYS = ['conversations', 'agents', 'settings', 'images', 'apiKeys'] as const satisfies readonly (keyof SyncScope)[]

/** The checkboxes of what is synced; API keys (off by default) carry their explanation. */
export function ScopeFields({ scope, onChange, disabled }: { scope: SyncScope; onChange(key: keyof SyncScope, value: boolean): void; disabled?: boolean }) {
  const { t } = useTranslation()
  return (
    <fieldset className="space-y-1.5" data-testid="sync-scope">
      <legend className="mb-1 text-sm font-medium">{t('sync.scope.legend')}</legend>
      {SCOPE_KEYS.map((key) => (
        <label key={key} className="flex items-start gap-2 text-sm">
          <input type="checkbox" className="mt-0.5" checked={scope[key]} disabled={disabled} onChange={(e) => onChange(key, e.target.checked)} data-testid={`sync-scope-${key}`} aria-describedby={key === 'apiKeys' ? 'sync-api-keys-hint' : undefined} />
          <span>
            {t(`sync.scope.${key}`)}
            {key === 'apiKeys' && (
              <span id="sync-api-keys-hint" className={hintClass}>
                {t('sync.scope.apiKeysHint')}
              </span>
            )}
          </span>
        </label>
      ))}
    </fieldset>
  )
}

function StoreField({ spec, draft, error, onChange }: { spec: FieldSpec; draft: StoreDraft; error?: string; onChange(patch: Partial<StoreDraft>): void }) {
  const { t } = useTranslation()
  const id = `sync-field-${spec.name}`
  if (spec.type === 'checkbox') {
    const name = spec.name as FlagField
    return (
      <label className="flex items-start gap-2 text-sm sm:col-span-2">
        <input type="checkbox" className="mt-0.5" checked={draft[name]} onChange={(e) => onChange({ [name]: e.target.checked })} data-testid={id} aria-describedby={`${id}-hint`} />
        <span>
          {t(`sync.fields.${name}`)}
          <span id={`${id}-hint`} className={hintClass}>
            {t(`sync.hints.${name}`)}
          </span>
        </span>
      </label>
    )
  }
  const name = spec.name as TextField
  const wide = name === 'path' || name === 'url' || name === 'endpoint' || name === 'host'
  return (
    <label className={`block text-sm font-medium ${wide ? 'sm:col-span-2' : ''}`} htmlFor={id}>
      {t(`sync.fields.${name}`)}
      <input
        id={id}
        className={inputClass}
        type={spec.type === 'number' ? 'text' : spec.type}
        inputMode={spec.type === 'number' ? 'numeric' : undefined}
        value={draft[name]}
        maxLength={FIELD_MAX[name]}
        placeholder={spec.placeholder}
        onChange={(e) => onChange({ [name]: e.target.value })}
        aria-invalid={error ? true : undefined}
        aria-required={spec.required || undefined}
        aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
        autoComplete="off"
        spellCheck={false}
        data-testid={id}
      />
      {error && (
        <span id={`${id}-error`} className={errorClass} data-testid={`sync-error-${name}`}>
          {t(error)}
        </span>
      )}
      <span id={`${id}-hint`} className={hintClass}>
        {t(`sync.hints.${name}`)}
      </span>
    </label>
  )
}

/** The contract's lengths, so a paste far too long is cut where the core would refuse it. */
const FIELD_MAX: Record<TextField, number> = { path: 4096, endpoint: 2000, region: 100, bucket: 255, prefix: 500, accessKeyId: 500, url: 2000, username: 500, host: 255, port: 5, database: 255, user: 255, schema: 63 }

type TestResult = { objects: number } | { problem: Problem }

/**
 * Choosing a store, testing it, the passphrase (twice for a new sync), what is synced, and Set up /
 * Join. Also used to change the store once set up: the form starts from the store in use and an
 * empty secret field keeps the saved secret.
 */
export function SyncSetupForm({ status, readOnly, onCancel }: { status: SyncStatus; readOnly: boolean; onCancel?(): void }) {
  const { t } = useTranslation()
  const formId = useId()
  const [draft, setDraft] = useState<StoreDraft>(() => (status.store ? draftFromStore(status.store) : emptyDraft('folder')))
  const [secret, setSecret] = useState('')
  const [mode, setMode] = useState<'setup' | 'join'>(status.store ? 'join' : 'setup')
  const [passphrase, setPassphrase] = useState('')
  const [confirm, setConfirm] = useState('')
  const [scope, setScope] = useState<SyncScope>(status.scope)
  const [deviceName, setDeviceName] = useState(status.deviceName)
  const [errors, setErrors] = useState<FieldErrors>({})
  const [passphraseError, setPassphraseError] = useState<string>()
  const [test, setTest] = useState<TestResult>()
  const [busy, setBusy] = useState<'test' | 'setup'>()
  const [problem, setProblem] = useState<Problem>()

  // The saved secret belongs to the store in use; another kind needs its own.
  const secretSaved = status.store !== undefined && status.store.kind === draft.kind
  const secretKind = SECRET_REQUIRED[draft.kind]
  const change = (patch: Partial<StoreDraft>) => {
    setDraft((d) => ({ ...d, ...patch }))
    setTest(undefined)
    setErrors((e) => Object.fromEntries(Object.entries(e).filter(([k]) => !(k in patch))))
  }
  const checked = () => {
    const result = validateStore(draft, secret, secretSaved)
    if ('errors' in result) {
      setErrors(result.errors)
      // Focus the first field to fix, so a keyboard or screen-reader user lands on it.
      const first = Object.keys(result.errors)[0]
      document.getElementById(first === 'secret' ? 'sync-secret' : `sync-field-${first}`)?.focus()
      return undefined
    }
    setErrors({})
    return result.store
  }

  const runTest = async () => {
    const store = checked()
    if (!store) return
    setBusy('test')
    setTest(undefined)
    const r = await bridge().call('sync.test', { store, ...(secret ? { secret } : {}) })
    setBusy(undefined)
    setTest(r.ok ? { objects: r.value.objects } : { problem: problemOf(r.error) })
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const store = checked()
    const wrong = validatePassphrase(passphrase, confirm, mode)
    setPassphraseError(wrong)
    if (!store) return
    if (wrong) return document.getElementById('sync-passphrase')?.focus()
    setBusy('setup')
    setProblem(undefined)
    const name = deviceName.trim()
    const r = await bridge().call('sync.setup', { store, ...(secret ? { secret } : {}), passphrase, scope, ...(name && name !== status.deviceName ? { deviceName: name } : {}) })
    setBusy(undefined)
    if (!r.ok) return setProblem(problemOf(r.error))
    setPassphrase('')
    setConfirm('')
    setSecret('')
    applySyncStatus(r.value)
    onCancel?.()
  }

  const strength = passphrase ? passphraseStrength(passphrase) : undefined
  return (
    <form className="space-y-5" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={`${formId}-legend`} data-testid="sync-setup-form">
      <fieldset disabled={readOnly || busy !== undefined} className="space-y-5">
        <fieldset>
          <legend id={`${formId}-legend`} className="mb-2 text-sm font-medium">
            {t('sync.store')}
          </legend>
          <div className="inline-flex flex-wrap rounded-lg border border-zinc-300 p-0.5 dark:border-zinc-700" data-testid="sync-kinds">
            {syncStoreKinds.map((kind: SyncStoreKind) => (
              <label key={kind} className={`cursor-pointer rounded-md px-3 py-1.5 text-sm has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-accent ${draft.kind === kind ? 'bg-accent text-white' : 'text-zinc-600 dark:text-zinc-300'}`}>
                <input type="radio" name={`${formId}-kind`} value={kind} className="sr-only" checked={draft.kind === kind} onChange={() => change({ kind })} data-testid={`sync-kind-${kind}`} />
                {t(`sync.kinds.${kind}`)}
              </label>
            ))}
          </div>
          <p className="mt-1.5 text-xs text-zinc-500 dark:text-zinc-400" data-testid="sync-kind-hint">
            {t(`sync.kindHints.${draft.kind}`)}
          </p>
        </fieldset>

        <div className="grid gap-3 sm:grid-cols-2" data-testid="sync-store-fields" data-kind={draft.kind}>
          {STORE_FIELDS[draft.kind].map((spec) => (
            <StoreField key={`${draft.kind}-${spec.name}`} spec={spec} draft={draft} error={errors[spec.name as TextField]} onChange={change} />
          ))}
          {secretKind !== undefined && (
            <label className="block text-sm font-medium sm:col-span-2" htmlFor="sync-secret">
              {t(`sync.secret.${draft.kind}`)}
              <input
                id="sync-secret"
                className={inputClass}
                maxLength={10_000}
                type="password"
                value={secret}
                onChange={(e) => {
                  setSecret(e.target.value)
                  setTest(undefined)
                  setErrors(({ secret: _, ...rest }) => rest)
                }}
                autoComplete="new-password"
                aria-invalid={errors.secret ? true : undefined}
                aria-describedby={`sync-secret-hint${errors.secret ? ' sync-secret-error' : ''}`}
                data-testid="sync-secret"
              />
              {errors.secret && (
                <span id="sync-secret-error" className={errorClass} data-testid="sync-error-secret">
                  {t(errors.secret)}
                </span>
              )}
              <span id="sync-secret-hint" className={hintClass} data-testid={secretSaved ? 'sync-secret-saved' : undefined}>
                {secretSaved ? t('sync.secretSaved') : t('sync.secretHint')}
              </span>
            </label>
          )}
        </div>

        <div className="space-y-2">
          <button type="button" className={buttonClass} onClick={() => void runTest()} data-testid="sync-test">
            {busy === 'test' ? t('sync.testing') : t('sync.test')}
          </button>
          <div aria-live="polite">
            {test && 'objects' in test && (
              <p className="text-sm text-emerald-700 dark:text-emerald-400" data-testid="sync-test-ok">
                {test.objects === 0 ? t('sync.testEmpty') : `${t('sync.testOk', { count: test.objects })} ${mode === 'setup' ? t('sync.testUsed') : ''}`.trim()}
              </p>
            )}
          </div>
          {test && 'problem' in test && <SyncProblem problem={test.problem} testId="sync-test-error" />}
        </div>

        <fieldset>
          <legend className="mb-2 text-sm font-medium">{t('sync.mode.legend')}</legend>
          <div className="flex flex-wrap gap-4 text-sm">
            {(['setup', 'join'] as const).map((m) => (
              <label key={m} className="flex items-center gap-2">
                <input type="radio" name={`${formId}-mode`} checked={mode === m} onChange={() => setMode(m)} data-testid={`sync-mode-${m}`} />
                {t(`sync.mode.${m}`)}
              </label>
            ))}
          </div>
        </fieldset>

        <div className="space-y-2">
          <p className="rounded-md border border-amber-300 bg-amber-50 p-2 text-xs text-amber-900 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-200" id="sync-passphrase-note" data-testid="sync-passphrase-note">
            {t('sync.passphraseNote')}
          </p>
          <div className="grid gap-3 sm:grid-cols-2">
            <label className="block text-sm font-medium" htmlFor="sync-passphrase">
              {t('sync.passphrase')}
              <input
                id="sync-passphrase"
                className={inputClass}
                maxLength={1000}
                type="password"
                value={passphrase}
                onChange={(e) => {
                  setPassphrase(e.target.value)
                  setPassphraseError(undefined)
                }}
                autoComplete="new-password"
                aria-invalid={passphraseError ? true : undefined}
                aria-describedby={`sync-passphrase-note sync-strength${passphraseError ? ' sync-passphrase-error' : ''}`}
                data-testid="sync-passphrase"
              />
            </label>
            {mode === 'setup' && (
              <label className="block text-sm font-medium" htmlFor="sync-passphrase-confirm">
                {t('sync.passphraseConfirm')}
                <input
                  id="sync-passphrase-confirm"
                  className={inputClass}
                  maxLength={1000}
                  type="password"
                  value={confirm}
                  onChange={(e) => {
                    setConfirm(e.target.value)
                    setPassphraseError(undefined)
                  }}
                  autoComplete="new-password"
                  aria-invalid={passphraseError === 'sync.invalid.passphraseMismatch' ? true : undefined}
                  data-testid="sync-passphrase-confirm"
                />
              </label>
            )}
          </div>
          <p id="sync-strength" className="text-xs text-zinc-500 dark:text-zinc-400" aria-live="polite" data-testid="sync-strength" data-strength={strength}>
            {strength && mode === 'setup' ? t('sync.strength.label', { value: t(`sync.strength.${strength}`) }) : ''}
          </p>
          {passphraseError && (
            <p id="sync-passphrase-error" className={errorClass} role="alert" data-testid="sync-passphrase-error">
              {t(passphraseError)}
            </p>
          )}
        </div>

        <ScopeFields scope={scope} onChange={(key, value) => setScope((s) => ({ ...s, [key]: value }))} />

        <label className="block max-w-sm text-sm font-medium" htmlFor="sync-device-name-new">
          {t('sync.deviceName')}
          <input id="sync-device-name-new" className={inputClass} value={deviceName} maxLength={100} onChange={(e) => setDeviceName(e.target.value)} aria-describedby="sync-device-name-hint" data-testid="sync-device-name-new" />
          <span id="sync-device-name-hint" className={hintClass}>
            {t('sync.deviceNameHint')}
          </span>
        </label>

        {problem && <SyncProblem problem={problem} testId="sync-setup-error" />}
        <div className="flex flex-wrap gap-2">
          <button type="submit" className={primaryClass} data-testid="sync-setup">
            {busy === 'setup' ? t('sync.connecting') : mode === 'setup' ? t('sync.setup') : t('sync.join')}
          </button>
          {onCancel && (
            <button type="button" className={buttonClass} onClick={onCancel} data-testid="sync-cancel">
              {t('sync.cancel')}
            </button>
          )}
        </div>
      </fieldset>
    </form>
  )
}
