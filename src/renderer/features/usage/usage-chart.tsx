import { useEffect, useRef } from 'react'
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip } from 'chart.js'

// Only the parts this chart uses are registered, so the lazy chunk stays small (chart.js is tree-shakable).
Chart.register(BarController, BarElement, CategoryScale, LinearScale, LineController, LineElement, PointElement, Tooltip, Legend)

export interface UsageChartProps {
  labels: string[]
  costUsd: number[]
  tokens: number[]
  costLabel: string
  tokensLabel: string
  /** Days read as a line over time; providers, models… as bars side by side. */
  timeline: boolean
}

/**
 * Cost (USD, bars) and tokens (line, right axis) per key of the usage table. Loaded lazily with
 * chart.js: the Settings page opens without it, and the entry chunk does not carry it.
 */
export default function UsageChart({ labels, costUsd, tokens, costLabel, tokensLabel, timeline }: UsageChartProps) {
  const canvas = useRef<HTMLCanvasElement>(null)
  const chart = useRef<Chart | undefined>(undefined)
  useEffect(() => {
    if (!canvas.current) return
    const dark = document.documentElement.classList.contains('dark')
    const grid = dark ? 'rgba(255,255,255,0.08)' : 'rgba(0,0,0,0.06)'
    const text = dark ? '#a1a1aa' : '#52525b'
    chart.current = new Chart(canvas.current, {
      type: 'bar',
      data: {
        labels,
        datasets: [
          { type: 'bar', label: costLabel, data: costUsd, backgroundColor: 'rgba(99,102,241,0.7)', yAxisID: 'cost' },
          timeline
            ? { type: 'line', label: tokensLabel, data: tokens, borderColor: 'rgba(16,185,129,0.9)', backgroundColor: 'rgba(16,185,129,0.9)', yAxisID: 'tokens', tension: 0.2 }
            : { type: 'bar', label: tokensLabel, data: tokens, backgroundColor: 'rgba(16,185,129,0.6)', yAxisID: 'tokens' }
        ]
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        interaction: { mode: 'index', intersect: false },
        plugins: { legend: { labels: { color: text } } },
        scales: {
          x: { ticks: { color: text }, grid: { color: grid } },
          cost: { type: 'linear', position: 'left', beginAtZero: true, ticks: { color: text }, grid: { color: grid } },
          tokens: { type: 'linear', position: 'right', beginAtZero: true, ticks: { color: text }, grid: { drawOnChartArea: false } }
        }
      }
    })
    return () => {
      chart.current?.destroy()
      chart.current = undefined
    }
  }, [labels, costUsd, tokens, costLabel, tokensLabel, timeline])
  return (
    <div className="h-56 w-full" data-testid="usage-chart">
      <canvas ref={canvas} role="img" aria-label={`${costLabel} / ${tokensLabel}`} />
    </div>
  )
}
