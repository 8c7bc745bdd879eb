import { create } from 'zustand'

/**
 * Which side panels are collapsed. Kept per window in localStorage, like the theme: it is how
 * this window looks, not app data, and must apply before the first paint.
 */
export type PanelId = 'nav' | 'conversations'

interface LayoutState {
  collapsed: Record<PanelId, boolean>
  toggle(panel: PanelId): void
}

const KEY = 'switchboard.layout'

const stored = (): Record<PanelId, boolean> => {
  try {
    const value = JSON.parse(localStorage.getItem(KEY) ?? '{}') as Partial<Record<PanelId, unknown>>
    return { nav: value.nav === true, conversations: value.conversations === true }
  } catch {
    // A hand-edited or truncated value: start expanded.
    return { nav: false, conversations: false }
  }
}

export const useLayout = create<LayoutState>()((set, get) => ({
  collapsed: stored(),
  toggle(panel) {
    const collapsed = { ...get().collapsed, [panel]: !get().collapsed[panel] }
    localStorage.setItem(KEY, JSON.stringify(collapsed))
    set({ collapsed })
  }
}))
