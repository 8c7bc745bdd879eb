/** Microphone level 0..1 as a row of bars, so the user sees they are being heard. */
export function LevelMeter({ level }: { level: number }) {
  const bars = 5
  return (
    <span className="flex h-4 items-end gap-0.5" aria-hidden data-testid="level-meter" data-level={level.toFixed(2)}>
      {Array.from({ length: bars }, (_, i) => (
        <span key={i} className={`w-1 rounded-sm ${level * bars > i ? 'bg-red-500' : 'bg-zinc-300 dark:bg-zinc-700'}`} style={{ height: `${30 + i * 17}%` }} />
      ))}
    </span>
  )
}
