/**
 * What the user is typing, kept per conversation in localStorage so a reload, a crash of the
 * page or a lost connection never takes it. Only the text: attached images and
 * files are uploads of their own and would not fit the storage quota.
 */
const KEY = 'switchboard.drafts'
/** The newest drafts kept; an old one beyond this is dropped. */
const MAX_DRAFTS = 100

/** The draft of a conversation, or of the next new chat (no conversation yet). */
export const draftKeyOf = (conversationId: string | undefined): string => conversationId ?? 'new'

type Drafts = Record<string, { text: string; at: number }>

function read(): Drafts {
  try {
    const parsed = JSON.parse(localStorage.getItem(KEY) ?? '{}') as unknown
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Drafts) : {}
  } catch {
    return {}
  }
}

export function loadDraft(key: string): string {
  const entry = read()[key]
  return typeof entry?.text === 'string' ? entry.text : ''
}

export function saveDraft(key: string, text: string): void {
  const drafts = read()
  if (text) drafts[key] = { text, at: Date.now() }
  else delete drafts[key]
  const kept = Object.entries(drafts)
    .sort((a, b) => b[1].at - a[1].at)
    .slice(0, MAX_DRAFTS)
  try {
    localStorage.setItem(KEY, JSON.stringify(Object.fromEntries(kept)))
  } catch {
    // Storage full or denied: the draft still lives in the composer for this page.
  }
}

const restored = new Set<(key: string, text: string) => void>()

/**
 * Puts text back into a conversation's draft (a cancelled queued message): appended to what
 * is there, and the composer showing that conversation picks it up at once.
 */
export function restoreDraft(key: string, text: string): void {
  const current = loadDraft(key)
  const next = current.trim() ? `${current.replace(/\s+$/, '')}\n\n${text}` : text
  saveDraft(key, next)
  for (const listener of restored) listener(key, next)
}

export function onDraftRestored(listener: (key: string, text: string) => void): () => void {
  restored.add(listener)
  return () => void restored.delete(listener)
}
