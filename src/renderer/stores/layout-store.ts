import { create } from 'zustand'

/**
 * Which side panels are collapsed. Kept per window in localStorage, like the theme: it is how
 * this window looks, not app data, and must apply before the first paint.
 *
 * On a narrow screen (a phone, a tablet held upright: ≤ 768 px) the side panels are drawers
 * over the page instead, opened one at a time by a button and closed by Esc, the backdrop or
 * going somewhere (a hash change); which one is open is not remembered.
 */
export type PanelId = 'nav' | 'conversations'

/** The width at and under which the layout is one column with drawers. */
export const NARROW_QUERY = '(max-width: 768px)'

interface LayoutState {
  collapsed: Record<PanelId, boolean>
  /** One column with drawers (≤ 768 px). */
  narrow: boolean
  /** The drawer open now (narrow screens only). */
  drawer?: PanelId
  toggle(panel: PanelId): void
  openDrawer(panel: PanelId): void
  closeDrawer(): void
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

const media = typeof window !== 'undefined' && typeof window.matchMedia === 'function' ? window.matchMedia(NARROW_QUERY) : undefined

export const useLayout = create<LayoutState>()((set, get) => ({
  collapsed: stored(),
  narrow: media?.matches ?? false,
  toggle(panel) {
    // On a narrow screen the shortcuts open and close the drawer instead.
    if (get().narrow) return set({ drawer: get().drawer === panel ? undefined : panel })
    const collapsed = { ...get().collapsed, [panel]: !get().collapsed[panel] }
    localStorage.setItem(KEY, JSON.stringify(collapsed))
    set({ collapsed })
  },
  openDrawer(panel) {
    set({ drawer: panel })
  },
  closeDrawer() {
    if (get().drawer) set({ drawer: undefined })
  }
}))

media?.addEventListener('change', (event) => useLayout.setState({ narrow: event.matches, drawer: undefined }))
// Choosing a page or a conversation in a drawer goes somewhere: the drawer has done its job.
if (typeof window !== 'undefined') window.addEventListener('hashchange', () => useLayout.getState().closeDrawer())
