/** The middle value (the upper middle of an even count); the list is left as it was. */
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** Median of the times of `runs` runs of `fn` (ms), after `warmup` runs. */
export async function medianMs(fn: () => unknown | Promise<unknown>, runs = 15, warmup = 3): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn()
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    await fn()
    times.push(performance.now() - start)
  }
  return median(times)
}

/**
 * Medians of `a` and `b` (ms) measured in alternation — a b, b a, a b … — after `warmup` runs of
 * each. On a machine shared with other work the load drifts over a measurement; taking all of
 * one and then all of the other would charge that drift to whichever ran in the busier half.
 */
export async function alternatingMedianMs(a: () => unknown | Promise<unknown>, b: () => unknown | Promise<unknown>, runs = 5, warmup = 1): Promise<[number, number]> {
  for (let i = 0; i < warmup; i++) {
    await a()
    await b()
  }
  const times: [number[], number[]] = [[], []]
  const time = async (which: 0 | 1) => {
    const start = performance.now()
    await (which === 0 ? a : b)()
    times[which].push(performance.now() - start)
  }
  for (let i = 0; i < runs; i++) {
    const first = (i % 2) as 0 | 1
    await time(first)
    await time((1 - first) as 0 | 1)
  }
  const median = (list: number[]) => [...list].sort((x, y) => x - y)[Math.floor(list.length / 2)]!
  return [median(times[0]), median(times[1])]
}

export const fmt = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(2)} ms`)

/** Prints one measurement next to its baseline with the ratio. */
export function report(label: string, value: number, baselineLabel: string, baseline: number, unit: 'ms' | 'per-s' = 'ms', goal?: string) {
  const ratio = unit === 'ms' ? value / baseline : baseline / value
  const show = (v: number) => (unit === 'ms' ? fmt(v) : `${Math.round(v).toLocaleString('en')}/s`)
  console.log(`${label.padEnd(48)} ${show(value).padStart(14)}   vs ${baselineLabel}: ${show(baseline)}   time ratio ${ratio.toFixed(2)}×${goal ? `   goal: ${goal}` : ''}`)
}
