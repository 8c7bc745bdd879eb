import { useEffect } from 'react'
import { useTranslation } from 'react-i18next'
import { Page } from '../../components/page'
import { Gallery } from './gallery'
import { ImageModelPicker } from './image-model-picker'
import { imageActions, useImages } from './images-store'
import { ParamPanel } from './param-panel'
import { TaskList } from './task-list'

/** Images: pick an image model, fill its parameters, generate (several at once), browse results. */
export function ImagesPage() {
  const { t } = useTranslation()
  const current = useImages((s) => s.current)
  const submitError = useImages((s) => s.submitError)
  const issues = useImages((s) => s.issues)
  const triedSubmit = useImages((s) => s.triedSubmit)
  useEffect(() => {
    void imageActions.init()
  }, [])
  const blocking = issues.filter((i) => i.param !== 'prompt' || triedSubmit)
  return (
    <Page title={t('pages.imagesTitle')} testId="page-images">
      <div className="flex h-full min-h-0 gap-6">
        <aside className="flex w-80 shrink-0 flex-col gap-4 overflow-y-auto pr-1" aria-label={t('images.parameters')}>
          <div>
            <label className="mb-1 block text-xs font-medium text-zinc-600 dark:text-zinc-400">{t('images.model')}</label>
            <ImageModelPicker />
          </div>
          <ParamPanel />
          {current && (
            <button
              onClick={() => imageActions.generate()}
              disabled={blocking.length > 0}
              className="rounded-md bg-accent px-3 py-2 text-sm font-medium text-white hover:bg-accent-strong disabled:opacity-50"
              data-testid="image-generate"
            >
              {t('images.generate')}
            </button>
          )}
          {submitError && (
            <p className="text-xs text-red-600 dark:text-red-400" role="alert" data-testid="image-submit-error">
              {submitError.message}
            </p>
          )}
        </aside>
        <div className="min-w-0 flex-1 overflow-y-auto">
          <TaskList />
          <h2 className="mb-3 text-sm font-semibold">{t('images.gallery')}</h2>
          <Gallery />
        </div>
      </div>
    </Page>
  )
}
