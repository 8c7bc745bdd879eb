import { useLayoutEffect, useState, type RefObject } from 'react'

/**
 * Below this width of the competition's own box its columns become tabs, whatever their number:
 * the box is about this wide in a 1024 px window with the sidebar.
 */
export const TABS_BELOW_PX = 800
/** Narrower columns than this break text one word a line: tabs instead. */
export const MIN_COLUMN_PX = 260

/**
 * Columns or tabs, by the space left for the columns (the artifact panel, the sidebar and the
 * window all take from it), not by the window's width.
 */
export function competitionLayout(width: number, columns: number): 'columns' | 'tabs' {
  return width < Math.max(TABS_BELOW_PX, columns * MIN_COLUMN_PX) ? 'tabs' : 'columns'
}

/** The content width of an element, kept current as it is resized (undefined until measured). */
export function useElementWidth(ref: RefObject<HTMLElement | null>): number | undefined {
  const [width, setWidth] = useState<number>()
  useLayoutEffect(() => {
    const el = ref.current
    if (!el) return
    setWidth(el.clientWidth)
    const observer = new ResizeObserver(() => setWidth(el.clientWidth))
    observer.observe(el)
    return () => observer.disconnect()
  }, [ref])
  return width
}
