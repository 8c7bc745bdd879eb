/**
 * A note a page leaves for itself across `location.reload()` (after an import or a restore every
 * screen starts again from the data as it is now). It is taken from sessionStorage once per page
 * load, when first asked for, and then kept here: a section that mounts twice (a lazy page, a
 * re-render with another key) shows it both times instead of the second mount finding nothing.
 */
const taken = new Map<string, string | undefined>()

export function takeReloadNote(key: string): string | undefined {
  if (!taken.has(key)) {
    taken.set(key, sessionStorage.getItem(key) ?? undefined)
    sessionStorage.removeItem(key)
  }
  return taken.get(key)
}

/** Leaves a note for the page that the next reload starts. */
export function leaveReloadNote(key: string, note: string): void {
  sessionStorage.setItem(key, note)
}
