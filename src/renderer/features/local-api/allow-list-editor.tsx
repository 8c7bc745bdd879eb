import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Plus, X } from 'lucide-react'
import type { AllowListEntry } from '../../../shared/security/local-api-allow-lists'

const input = 'block w-full rounded-md border border-zinc-300 bg-transparent px-2 py-1.5 text-sm dark:border-zinc-700'
const button = 'inline-flex items-center gap-1.5 rounded-md border border-zinc-300 px-3 py-1.5 text-sm hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800'

/**
 * One allow-list of Settings → Local API (origins or host names): the entries with a remove
 * button each, and a field to add one. An entry is checked here with the same rule as the
 * procedure, so a typo is named before anything is saved; `save` gets the whole new list.
 */
export function AllowListEditor(props: {
  id: string
  label: string
  hint: string
  placeholder: string
  entries: readonly string[]
  check: (text: string) => AllowListEntry
  disabled: boolean
  save: (entries: string[]) => Promise<void>
}) {
  const { t } = useTranslation()
  const [text, setText] = useState('')
  const [problem, setProblem] = useState<string>()
  const add = async () => {
    const entry = props.check(text)
    if (!entry.ok) return setProblem(t(`localApi.problems.${entry.problem}`))
    setProblem(undefined)
    setText('')
    if (!props.entries.includes(entry.value)) await props.save([...props.entries, entry.value])
  }
  return (
    <div className="space-y-1" data-testid={`local-api-${props.id}`}>
      <label className="block text-sm font-medium" htmlFor={`local-api-${props.id}-input`}>
        {props.label}
      </label>
      <p className="text-xs text-zinc-500">{props.hint}</p>
      <ul className="flex flex-wrap gap-2" aria-label={props.label}>
        {props.entries.length === 0 && <li className="text-sm text-zinc-500">{t('localApi.noneListed')}</li>}
        {props.entries.map((entry) => (
          <li key={entry} className="inline-flex items-center gap-1 rounded-md bg-zinc-100 px-2 py-0.5 font-mono text-xs dark:bg-zinc-800" data-testid={`local-api-${props.id}-entry`}>
            {entry}
            <button
              type="button"
              className="rounded p-0.5 hover:bg-zinc-200 disabled:opacity-50 dark:hover:bg-zinc-700"
              disabled={props.disabled}
              onClick={() => void props.save(props.entries.filter((e) => e !== entry))}
              aria-label={t('localApi.removeEntry', { entry })}
            >
              <X size={12} aria-hidden />
            </button>
          </li>
        ))}
      </ul>
      {!props.disabled && (
        <form
          className="flex gap-2"
          onSubmit={(e) => {
            e.preventDefault()
            void add()
          }}
        >
          <input
            id={`local-api-${props.id}-input`}
            className={input}
            value={text}
            placeholder={props.placeholder}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? `local-api-${props.id}-problem` : undefined}
            onChange={(e) => {
              setText(e.target.value)
              setProblem(undefined)
            }}
            data-testid={`local-api-${props.id}-input`}
          />
          <button type="submit" className={button} disabled={!text.trim()} data-testid={`local-api-${props.id}-add`}>
            <Plus size={14} aria-hidden /> {t('localApi.add')}
          </button>
        </form>
      )}
      {problem && (
        <p id={`local-api-${props.id}-problem`} className="text-sm text-red-600" role="alert" data-testid={`local-api-${props.id}-problem`}>
          {problem}
        </p>
      )}
    </div>
  )
}
