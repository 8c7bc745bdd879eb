export interface Rect {
  x: number
  y: number
  width: number
  height: number
}

export interface WindowState {
  bounds: Rect
  maximized: boolean
}

export const DEFAULT_WINDOW: WindowState = { bounds: { x: 0, y: 0, width: 1280, height: 820 }, maximized: false }
export const MIN_SIZE = { width: 720, height: 480 }

/** Parses a saved window state, rejecting anything malformed. */
export function parseWindowState(raw: unknown): WindowState | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined
  const { bounds, maximized } = raw as Partial<WindowState>
  if (!bounds || typeof bounds !== 'object') return undefined
  const values = [bounds.x, bounds.y, bounds.width, bounds.height]
  if (!values.every((v) => typeof v === 'number' && Number.isFinite(v))) return undefined
  return { bounds: { x: bounds.x, y: bounds.y, width: bounds.width, height: bounds.height }, maximized: maximized === true }
}

/**
 * Restores a saved window onto the displays that exist now: a window saved on a monitor
 * that has since been unplugged comes back centred on the primary display, never off-screen.
 */
export function fitToDisplays(saved: WindowState | undefined, workAreas: Rect[]): WindowState {
  const primary = workAreas[0] ?? DEFAULT_WINDOW.bounds
  const state = saved ?? DEFAULT_WINDOW
  const width = Math.max(MIN_SIZE.width, Math.min(state.bounds.width, primary.width))
  const height = Math.max(MIN_SIZE.height, Math.min(state.bounds.height, primary.height))
  const visible = saved
    ? workAreas.find((area) => overlap(area, state.bounds) >= Math.min(state.bounds.width * state.bounds.height, 100 * 100))
    : undefined
  if (visible) {
    const w = Math.min(state.bounds.width, visible.width)
    const h = Math.min(state.bounds.height, visible.height)
    return {
      bounds: {
        x: clamp(state.bounds.x, visible.x, visible.x + visible.width - w),
        y: clamp(state.bounds.y, visible.y, visible.y + visible.height - h),
        width: Math.max(MIN_SIZE.width, w),
        height: Math.max(MIN_SIZE.height, h)
      },
      maximized: state.maximized
    }
  }
  return {
    bounds: {
      x: Math.round(primary.x + (primary.width - width) / 2),
      y: Math.round(primary.y + (primary.height - height) / 2),
      width,
      height
    },
    maximized: state.maximized
  }
}

const clamp = (v: number, lo: number, hi: number) => Math.min(Math.max(v, lo), Math.max(lo, hi))

function overlap(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x)
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y)
  return w > 0 && h > 0 ? w * h : 0
}
