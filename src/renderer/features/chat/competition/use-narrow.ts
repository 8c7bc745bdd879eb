import { useSyncExternalStore } from 'react'

/** At this window width and below, the competition's columns become tabs (issue 18: 1024 px). */
export const TABS_AT = '(max-width: 1024px)'

/** Whether the window matches `query`, kept current as the window is resized. */
export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (changed) => {
      const list = matchMedia(query)
      list.addEventListener('change', changed)
      return () => list.removeEventListener('change', changed)
    },
    () => matchMedia(query).matches
  )
}
