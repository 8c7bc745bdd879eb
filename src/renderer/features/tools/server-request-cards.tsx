import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { elicitationDefaults, fieldOptions, validateElicitation } from '../../../shared/tools/elicitation'
import type { ElicitationField, ElicitationRequest, ElicitationValue, ToolApprovalRequest } from '../../../shared/tools/types'
import { answerApproval, answerElicitation, runKey, useToolRuns } from './tool-run-store'

const button = 'rounded border border-zinc-300 px-2 py-1 dark:border-zinc-700'

/** A running call's server asks the model (sampling): who, what, which model, how long; the user decides. */
function SamplingCard({ request }: { request: ToolApprovalRequest }) {
  const { t } = useTranslation()
  const s = request.sampling!
  return (
    <div className="space-y-2 border-t border-amber-300 bg-amber-50 px-2 py-2 dark:border-amber-700 dark:bg-amber-950" data-testid="sampling-card" role="group" aria-label={t('tools.sampling.title')}>
      <div className="font-medium">{t('tools.sampling.question', { server: request.serverName, model: s.model.modelId, maxTokens: s.maxTokens })}</div>
      {s.systemPrompt && <div className="text-zinc-600 dark:text-zinc-400">{t('tools.sampling.system', { text: s.systemPrompt })}</div>}
      <pre className="max-h-48 overflow-auto rounded bg-white p-2 font-mono text-[11px] whitespace-pre-wrap dark:bg-zinc-900" data-testid="sampling-prompt">{s.prompt}</pre>
      <div className="flex flex-wrap gap-2">
        <button className="rounded bg-accent px-2 py-1 text-white" onClick={() => void answerApproval(request, 'allow')} data-testid="sampling-allow">{t('tools.sampling.allow')}</button>
        <button className={button} onClick={() => void answerApproval(request, 'always')} data-testid="sampling-always">{t('tools.sampling.always')}</button>
        <button className={button} onClick={() => void answerApproval(request, 'deny')} data-testid="sampling-deny">{t('tools.sampling.deny')}</button>
        <button className={button} onClick={() => void answerApproval(request, 'never')} data-testid="sampling-never">{t('tools.sampling.never')}</button>
      </div>
    </div>
  )
}

function FieldInput({ name, field, value, onChange, invalid }: { name: string; field: ElicitationField; value: ElicitationValue | undefined; onChange(v: ElicitationValue | undefined): void; invalid: boolean }) {
  const { t } = useTranslation()
  const options = fieldOptions(field)
  const id = `elicit-${name}`
  const common = { id, 'aria-invalid': invalid, 'data-testid': `elicitation-field-${name}` }
  const box = 'w-full rounded border border-zinc-300 bg-white px-1.5 py-0.5 dark:border-zinc-700 dark:bg-zinc-900'
  if (field.type === 'boolean') return <input type="checkbox" {...common} checked={value === true} onChange={(e) => onChange(e.target.checked)} />
  if (field.type === 'array' && options) {
    const chosen = Array.isArray(value) ? value : []
    return (
      <select multiple {...common} className={box} value={chosen} onChange={(e) => onChange([...e.target.selectedOptions].map((o) => o.value))}>
        {options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
    )
  }
  if (options)
    return (
      <select {...common} className={box} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value || undefined)}>
        <option value="">{t('tools.elicitation.chooseOne')}</option>
        {options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
    )
  if (field.type === 'number' || field.type === 'integer')
    return (
      <input
        type="number"
        {...common}
        className={box}
        step={field.type === 'integer' ? 1 : 'any'}
        {...(field.minimum !== undefined ? { min: field.minimum } : {})}
        {...(field.maximum !== undefined ? { max: field.maximum } : {})}
        value={typeof value === 'number' ? value : ''}
        onChange={(e) => onChange(e.target.value === '' ? undefined : Number(e.target.value))}
      />
    )
  const type = field.format === 'email' ? 'email' : field.format === 'uri' ? 'url' : field.format === 'date' ? 'date' : 'text'
  return <input type={type} {...common} className={box} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value)} />
}

/** A running call's server asks the user: a form from its schema, checked before it is sent. */
function ElicitationCard({ request }: { request: ElicitationRequest }) {
  const { t } = useTranslation()
  const schema = request.requestedSchema
  const [values, setValues] = useState<Record<string, ElicitationValue | undefined>>(() => elicitationDefaults(schema))
  const [problems, setProblems] = useState<Record<string, string>>({})
  const [error, setError] = useState<string>()
  const required = new Set(schema.required ?? [])
  const accept = async () => {
    const content = Object.fromEntries(Object.entries(values).filter((e): e is [string, ElicitationValue] => e[1] !== undefined && e[1] !== ''))
    const found = validateElicitation(schema, content)
    setProblems(found)
    if (Object.keys(found).length) return
    setError(await answerElicitation(request, { action: 'accept', content }))
  }
  return (
    <form
      className="space-y-2 border-t border-sky-300 bg-sky-50 px-2 py-2 dark:border-sky-700 dark:bg-sky-950"
      data-testid="elicitation-card"
      aria-label={t('tools.elicitation.title')}
      onSubmit={(e) => {
        e.preventDefault()
        void accept()
      }}
    >
      <div className="font-medium">{t('tools.elicitation.from', { server: request.serverName })}</div>
      <p className="whitespace-pre-wrap">{request.message}</p>
      {Object.entries(schema.properties).map(([name, field]) => (
        <div key={name} className="space-y-0.5">
          <label htmlFor={`elicit-${name}`} className="block font-medium">
            {field.title ?? name}
            {required.has(name) && <span className="ml-1 text-red-600">* <span className="sr-only">{t('tools.elicitation.required')}</span></span>}
          </label>
          {field.description && <div className="text-zinc-500">{field.description}</div>}
          <FieldInput name={name} field={field} value={values[name]} invalid={Boolean(problems[name])} onChange={(v) => setValues((s) => ({ ...s, [name]: v }))} />
          {problems[name] && <div role="alert" className="text-red-600" data-testid={`elicitation-problem-${name}`}>{problems[name]}</div>}
        </div>
      ))}
      {error && <div role="alert" className="text-red-600">{error}</div>}
      <div className="flex flex-wrap gap-2">
        <button type="submit" className="rounded bg-accent px-2 py-1 text-white" data-testid="elicitation-accept">{t('tools.elicitation.accept')}</button>
        <button type="button" className={button} onClick={() => void answerElicitation(request, { action: 'decline' })} data-testid="elicitation-decline">{t('tools.elicitation.decline')}</button>
        <button type="button" className={button} onClick={() => void answerElicitation(request, { action: 'cancel' })} data-testid="elicitation-cancel">{t('tools.elicitation.cancel')}</button>
      </div>
    </form>
  )
}

/** What a running call's server asks (sampling approval, a question), shown under that call. */
export function ServerRequestCards({ messageId, callId }: { messageId: string; callId: string }) {
  const key = runKey(messageId, callId)
  const sampling = useToolRuns((s) => s.samplings[key])
  const elicitation = useToolRuns((s) => s.elicitations[key])
  return (
    <>
      {sampling?.sampling && <SamplingCard key={sampling.callId} request={sampling} />}
      {elicitation && <ElicitationCard key={elicitation.callId} request={elicitation} />}
    </>
  )
}
