/** Sizes in decimal units, as Ollama itself shows them (1 GB = 10^9 bytes). */
export function formatBytes(bytes: number, digits = 1): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—'
  const units = ['B', 'KB', 'MB', 'GB', 'TB']
  let value = bytes
  let unit = 0
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000
    unit++
  }
  return `${unit === 0 ? value : value.toFixed(digits)} ${units[unit]}`
}

export const formatRate = (bytesPerSecond: number) => `${formatBytes(bytesPerSecond)}/s`

/** 75 → "1m 15s", 4000 → "1h 7m". */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '—'
  const s = Math.round(seconds)
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`
}

/** The percentage a bar shows: floor, so 99.96 % is not shown as done. */
export const percent = (fraction: number) => Math.floor(Math.max(0, Math.min(1, fraction)) * 1000) / 10
