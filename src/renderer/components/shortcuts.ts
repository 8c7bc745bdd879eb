/**
 * Every keyboard shortcut of the app, in one list: the shortcuts sheet (Ctrl/Cmd+/) shows this
 * list and the key handlers test events with `matchesShortcut`, so the sheet cannot drift from
 * what the keys do. `mod` is Cmd on macOS and Ctrl elsewhere.
 */
export type ShortcutId =
  | 'go-chat'
  | 'go-images'
  | 'go-local-models'
  | 'go-knowledge'
  | 'go-settings'
  | 'go-usage'
  | 'new-chat'
  | 'command-palette'
  | 'shortcuts'
  | 'toggle-nav'
  | 'toggle-conversations'
  | 'send'
  | 'newline'
  | 'stop'
  | 'generate-image'

export type ShortcutGroup = 'general' | 'navigation' | 'chat' | 'images'

export interface Shortcut {
  id: ShortcutId
  group: ShortcutGroup
  /** `key` as KeyboardEvent.key reports it (lower case for letters). */
  key: string
  mod?: boolean
  shift?: boolean
}

/**
 * The pages in the sidebar's order, top to bottom: the sidebar draws them in this order and
 * Ctrl/Cmd+1…6 open them in this order, so the numbers follow what the user sees.
 */
export const NAV_ORDER = ['chat', 'images', 'local-models', 'knowledge', 'usage', 'settings'] as const
export type NavRoute = (typeof NAV_ORDER)[number]

export const SHORTCUTS: readonly Shortcut[] = [
  { id: 'command-palette', group: 'general', key: 'k', mod: true },
  { id: 'shortcuts', group: 'general', key: '/', mod: true },
  { id: 'toggle-nav', group: 'general', key: 'b', mod: true },
  { id: 'toggle-conversations', group: 'general', key: 'b', mod: true, shift: true },
  ...NAV_ORDER.map((route, i): Shortcut => ({ id: `go-${route}`, group: 'navigation', key: String(i + 1), mod: true })),
  { id: 'new-chat', group: 'chat', key: 'n', mod: true },
  { id: 'send', group: 'chat', key: 'Enter' },
  { id: 'newline', group: 'chat', key: 'Enter', shift: true },
  { id: 'stop', group: 'chat', key: 'Escape' },
  { id: 'generate-image', group: 'images', key: 'Enter', mod: true }
]

/** The routes the navigation shortcuts open. */
export const NAV_SHORTCUTS: Partial<Record<ShortcutId, string>> = Object.fromEntries(NAV_ORDER.map((route) => [`go-${route}`, `/${route}`]))

interface KeyLike {
  key: string
  ctrlKey: boolean
  metaKey: boolean
  shiftKey: boolean
  altKey: boolean
}

/** Whether a key event is this shortcut (Ctrl or Cmd both count as `mod`; Alt never matches). */
export function matchesShortcut(event: KeyLike, id: ShortcutId): boolean {
  const s = SHORTCUTS.find((x) => x.id === id)
  if (!s || event.altKey) return false
  const mod = event.ctrlKey || event.metaKey
  if (Boolean(s.mod) !== mod || Boolean(s.shift) !== event.shiftKey) return false
  // With Shift held, letters arrive upper case ("B").
  return event.key.toLowerCase() === s.key.toLowerCase()
}

export const isMac = (): boolean => /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent)

/** The keys to press, for display ("Ctrl", "Shift", "B"). */
export function shortcutKeys(s: Shortcut, mac = isMac()): string[] {
  const keys: string[] = []
  if (s.mod) keys.push(mac ? '⌘' : 'Ctrl')
  if (s.shift) keys.push(mac ? '⇧' : 'Shift')
  keys.push(s.key === 'Escape' ? 'Esc' : s.key.length === 1 ? s.key.toUpperCase() : s.key)
  return keys
}

/** One line for a tooltip: "Ctrl+B". */
export const shortcutLabel = (id: ShortcutId, mac = isMac()): string => {
  const s = SHORTCUTS.find((x) => x.id === id)
  return s ? shortcutKeys(s, mac).join(mac ? '' : '+') : ''
}
