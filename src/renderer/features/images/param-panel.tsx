import { useTranslation } from 'react-i18next'
import { filterAspectRatios } from '../../../shared/image-params/aspect-ratio'
import { PROVIDER_MAX_INPUT_IMAGES } from '../../../shared/image-params/families'
import { imageParamSpecs, type ImageParamSpec } from '../../../shared/image-params/param-specs'
import type { ImageParamIssue } from '../../../shared/image-params/validate'
import { MAX_IMAGE_COUNT, imageActions, useImages } from './images-store'
import { matchesShortcut } from '../../components/shortcuts'
import { ReferenceImages } from './reference-images'

const box = 'rounded-md border border-zinc-300 bg-transparent px-2 py-1.5 text-sm dark:border-zinc-700'
const field = `w-full ${box}`

/** A validation message in the user's language, naming what the parameter accepts. */
export function IssueText({ issue }: { issue: ImageParamIssue }) {
  const { t } = useTranslation()
  const label = t(`images.params.${issue.param}`, { defaultValue: issue.param })
  let text = issue.message
  if (issue.param === 'prompt' && /required/.test(issue.message)) text = t('images.promptRequired')
  else if (Array.isArray(issue.allowed)) text = t('images.mustBeOneOf', { name: label, values: issue.allowed.join(', ') })
  else if (issue.allowed && issue.param.startsWith('image')) text = t('images.tooManyImages', { name: label, max: issue.allowed.max })
  else if (issue.allowed) {
    const step = issue.allowed.step && issue.allowed.step !== 1 ? t('images.inSteps', { step: issue.allowed.step }) : ''
    text = t('images.mustBeBetween', { name: label, min: issue.allowed.min, max: issue.allowed.max, step })
  }
  return (
    <p className="mt-1 text-xs text-red-600 dark:text-red-400" role="alert" data-testid={`issue-${issue.param}`}>
      {text}
    </p>
  )
}

/** The id a field's label points at (reference-image pickers carry their own labels). */
const fieldId = (name: string) => `image-param-${name}`

function RangeField({ spec, value }: { spec: Extract<ImageParamSpec, { kind: 'range' }>; value: unknown }) {
  const step = spec.step ?? (spec.integer ? 1 : 0.1)
  const n = typeof value === 'number' ? value : spec.default
  const set = (raw: string) => imageActions.setValue(spec.name, raw === '' ? undefined : Number(raw))
  return (
    <div className="flex items-center gap-2">
      <input
        type="range"
        min={spec.min}
        max={spec.max}
        step={step}
        value={n}
        onChange={(e) => set(e.target.value)}
        className="min-w-0 flex-1 accent-[var(--color-accent)]"
        aria-label={spec.name}
        data-testid={`param-${spec.name}-slider`}
      />
      <input id={fieldId(spec.name)} type="number" min={spec.min} max={spec.max} step={step} value={typeof value === 'number' ? value : ''} onChange={(e) => set(e.target.value)} className={`${box} w-24 shrink-0`} data-testid={`param-${spec.name}`} />
    </div>
  )
}

function SpecField({ spec }: { spec: ImageParamSpec }) {
  const { t } = useTranslation()
  const value = useImages((s) => s.values[spec.name])
  const providerId = useImages((s) => s.current?.providerId)
  switch (spec.kind) {
    case 'text':
      return (
        <textarea
          id={fieldId(spec.name)}
          rows={4}
          value={typeof value === 'string' ? value : ''}
          onChange={(e) => imageActions.setValue('prompt', e.target.value)}
          onKeyDown={(e) => {
            if (matchesShortcut(e, 'generate-image')) imageActions.generate()
          }}
          placeholder={t('images.promptPlaceholder')}
          className={field}
          data-testid="param-prompt"
        />
      )
    case 'seed':
      return (
        <div className="flex gap-2">
          <input
            id={fieldId(spec.name)}
            type="number"
            min={0}
            step={1}
            value={typeof value === 'number' ? value : ''}
            placeholder={t('images.seedRandom')}
            onChange={(e) => imageActions.setValue('seed', e.target.value === '' ? null : Number(e.target.value))}
            className={field}
            data-testid="param-seed"
          />
          <button type="button" onClick={() => imageActions.randomSeed()} className="shrink-0 rounded-md border border-zinc-300 px-2 text-xs dark:border-zinc-700" data-testid="seed-randomise">
            {t('images.randomise')}
          </button>
          {typeof value === 'number' && (
            <button type="button" onClick={() => imageActions.setValue('seed', null)} className="shrink-0 rounded-md px-2 text-xs text-zinc-500" data-testid="seed-clear">
              {t('images.clear')}
            </button>
          )}
        </div>
      )
    case 'enum': {
      const options = spec.name === 'aspectRatio' && providerId === 'bfl' ? filterAspectRatios(spec.enum) : spec.enum
      return (
        <select id={fieldId(spec.name)} value={typeof value === 'string' ? value : spec.default} onChange={(e) => imageActions.setValue(spec.name, e.target.value)} className={field} data-testid={`param-${spec.name}`}>
          {options.map((o) => (
            <option key={o} value={o}>
              {o === 'auto' ? t('images.auto') : o}
            </option>
          ))}
        </select>
      )
    }
    case 'range':
      return <RangeField spec={spec} value={value} />
    case 'boolean':
      return <input id={fieldId(spec.name)} type="checkbox" checked={value === true} onChange={(e) => imageActions.setValue(spec.name, e.target.checked)} data-testid={`param-${spec.name}`} />
    case 'image':
      return <ReferenceImages name="imageUrl" max={1} />
    case 'images': {
      const caps = [spec.maxCount, providerId ? PROVIDER_MAX_INPUT_IMAGES[providerId] : undefined].filter((n): n is number => typeof n === 'number')
      return <ReferenceImages name="imageUrls" max={caps.length ? Math.min(...caps) : 4} />
    }
  }
}

/** How many images one click makes: each is its own task (providers answer one image per request). */
function CountField() {
  const { t } = useTranslation()
  const count = useImages((s) => s.count)
  return (
    <div>
      <label htmlFor="image-param-count" className="mb-1 block text-xs font-medium text-zinc-600 dark:text-zinc-400">
        {t('polish.imageCount')}
      </label>
      <select id="image-param-count" value={count} onChange={(e) => imageActions.setCount(Number(e.target.value))} className={field} data-testid="param-count">
        {Array.from({ length: MAX_IMAGE_COUNT }, (_, i) => i + 1).map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </select>
    </div>
  )
}

/** The form for one image model, generated from its parameter schema. */
export function ParamPanel() {
  const { t } = useTranslation()
  const parameters = useImages((s) => s.parameters)
  const issues = useImages((s) => s.issues)
  const triedSubmit = useImages((s) => s.triedSubmit)
  if (!parameters) return null
  const specs = imageParamSpecs(parameters)
  return (
    <div className="flex flex-col gap-4" data-testid="param-panel">
      {specs.map((spec) => {
        // An empty prompt is only an error once the user tries to generate.
        const own = issues.filter((i) => i.param === spec.name && (i.param !== 'prompt' || triedSubmit))
        const range = spec.kind === 'range' ? ` (${spec.min}–${spec.max})` : ''
        return (
          <div key={spec.name}>
            <label htmlFor={fieldId(spec.name)} className="mb-1 block text-xs font-medium text-zinc-600 dark:text-zinc-400">
              {t(`images.params.${spec.name}`, { defaultValue: spec.name })}
              {range}
            </label>
            <SpecField spec={spec} />
            {own.map((issue, i) => (
              <IssueText key={i} issue={issue} />
            ))}
          </div>
        )
      })}
      <CountField />
    </div>
  )
}
