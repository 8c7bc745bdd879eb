/** Median of the times of `runs` runs of `fn` (ms), after `warmup` runs. */
export async function medianMs(fn: () => unknown | Promise<unknown>, runs = 15, warmup = 3): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn()
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    await fn()
    times.push(performance.now() - start)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]!
}

export const fmt = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(2)} ms`)

/** Prints one measurement next to its baseline with the ratio. */
export function report(label: string, value: number, baselineLabel: string, baseline: number, unit: 'ms' | 'per-s' = 'ms', goal?: string) {
  const ratio = unit === 'ms' ? value / baseline : baseline / value
  const show = (v: number) => (unit === 'ms' ? fmt(v) : `${Math.round(v).toLocaleString('en')}/s`)
  console.log(`${label.padEnd(48)} ${show(value).padStart(14)}   vs ${baselineLabel}: ${show(baseline)}   time ratio ${ratio.toFixed(2)}×${goal ? `   goal: ${goal}` : ''}`)
}
