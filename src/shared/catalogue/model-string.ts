import type { ModelType } from './types'

/**
 * The model list syntax of an environment variable or a settings field:
 * comma-separated items; `-all` removes every built-in model, `-id` removes one,
 * `+id` or `id` adds one, and `id=Display Name` also names it. Empty items are skipped;
 * a later item for the same id replaces the earlier one.
 */
export interface ParsedModelString {
  add: Array<{ id: string; displayName: string | undefined; type: ModelType; abilities: Record<string, never> }>
  removeAll: boolean
  removed: string[]
}

export function parseModelString(text: string): ParsedModelString {
  const add: ParsedModelString['add'] = []
  const removed: string[] = []
  let removeAll = false
  for (const rawItem of text.split(/[,，]/)) {
    const item = rawItem.trim()
    if (!item) continue
    if (item.startsWith('-')) {
      const id = item.slice(1).trim()
      if (id === 'all') removeAll = true
      if (id) removed.push(id)
      continue
    }
    const body = item.startsWith('+') ? item.slice(1) : item
    const eq = body.indexOf('=')
    const id = (eq === -1 ? body : body.slice(0, eq)).trim()
    if (!id) continue
    const name = eq === -1 ? undefined : body.slice(eq + 1).trim() || undefined
    const existing = add.findIndex((m) => m.id === id)
    const model = { id, displayName: name, type: 'chat' as const, abilities: {} }
    if (existing === -1) add.push(model)
    else add[existing] = model
  }
  return { add, removeAll, removed }
}
