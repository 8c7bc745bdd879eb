/**
 * A bar filled to `percent` (0–100), announced as a progress bar. The track's size and shape
 * (`className`) and the fill's colour and motion (`fill`) are the caller's.
 */
export function ProgressBar({ percent, label, className, fill = 'bg-accent', testId }: { percent: number; label?: string; className: string; fill?: string; testId?: string }) {
  return (
    <div role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent} data-testid={testId} className={`overflow-hidden bg-zinc-200 dark:bg-zinc-800 ${className}`}>
      <div className={`h-full ${fill}`} style={{ width: `${percent}%` }} />
    </div>
  )
}
