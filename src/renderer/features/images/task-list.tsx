import { useTranslation } from 'react-i18next'
import { X } from 'lucide-react'
import type { ImageTaskState } from '../../../shared/images/image-task'
import { imageActions, isActive, useImages, type TaskView } from './images-store'

/** The visible state of a task: queued, running, polling attempt n, saving, done, failed with the reason. */
export function TaskStateText({ state }: { state: ImageTaskState }) {
  const { t } = useTranslation()
  switch (state.state) {
    case 'polling':
      return <>{t('images.state.polling', { attempt: state.attempt })}</>
    case 'failed':
      return <>{t('images.state.failed', { reason: state.error.message })}</>
    default:
      return <>{t(`images.state.${state.state}`)}</>
  }
}

const tone: Record<ImageTaskState['state'], string> = {
  queued: 'text-zinc-500',
  running: 'text-accent',
  polling: 'text-accent',
  saving: 'text-accent',
  done: 'text-emerald-600 dark:text-emerald-400',
  failed: 'text-red-600 dark:text-red-400',
  cancelled: 'text-zinc-500'
}

function TaskRow({ task }: { task: TaskView }) {
  const { t } = useTranslation()
  const active = isActive(task)
  return (
    <li className="flex items-start justify-between gap-3 rounded-md border border-zinc-200 px-3 py-2 text-sm dark:border-zinc-800" data-testid="image-task" data-state={task.state.state}>
      <div className="min-w-0">
        <p className="truncate font-medium" title={task.prompt}>
          {task.prompt}
        </p>
        <p className="text-xs text-zinc-500">
          {task.providerId} / {task.modelId}
        </p>
        <p className={`text-xs ${tone[task.state.state]}`} data-testid="image-task-state">
          {active && <span className="mr-1 inline-block h-2 w-2 animate-pulse rounded-full bg-current align-middle" aria-hidden />}
          <TaskStateText state={task.state} />
        </p>
      </div>
      {active ? (
        <button onClick={() => void imageActions.cancel(task.generationId)} className="shrink-0 rounded-md border border-zinc-300 px-2 py-0.5 text-xs dark:border-zinc-700" data-testid="image-task-cancel">
          {t('images.cancel')}
        </button>
      ) : (
        <button onClick={() => imageActions.dismissTask(task.generationId)} className="shrink-0 rounded p-0.5 text-zinc-500 hover:text-zinc-900 dark:hover:text-white" aria-label={t('images.dismiss')} data-testid="image-task-dismiss">
          <X aria-hidden className="size-4" />
        </button>
      )}
    </li>
  )
}

/** Tasks of this session, running ones first. */
export function TaskList() {
  const { t } = useTranslation()
  const tasks = useImages((s) => s.tasks)
  if (tasks.length === 0) return null
  const ended = tasks.filter((task) => task.state.state === 'failed' || task.state.state === 'cancelled').length
  const sorted = [...tasks].sort((a, b) => Number(isActive(b)) - Number(isActive(a)) || b.createdAt - a.createdAt)
  return (
    <section className="mb-6" aria-label={t('images.tasks')}>
      <div className="mb-2 flex items-center justify-between gap-3">
        <h2 className="text-sm font-semibold">{t('images.tasks')}</h2>
        {ended > 1 && (
          <button onClick={() => imageActions.dismissFailed()} className="rounded-md border border-zinc-300 px-2 py-0.5 text-xs hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800" data-testid="image-tasks-dismiss-failed">
            {t('polish.dismissFailed', { count: ended })}
          </button>
        )}
      </div>
      <ul className="grid gap-2 sm:grid-cols-2" data-testid="image-tasks">
        {sorted.map((task) => (
          <TaskRow key={task.generationId} task={task} />
        ))}
      </ul>
    </section>
  )
}
