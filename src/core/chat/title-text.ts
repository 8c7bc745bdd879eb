/**
 * What a conversation title may look like, whoever wrote it: one line of plain text (models
 * answer with markdown, quotes, a "Title:" label), at most TITLE_MAX_CHARS characters, cut at a
 * word where there is one. Pure, so the title scene and its fallback share it.
 */
export const TITLE_MAX_CHARS = 60
/** Words of the first message a conversation is named after when no title can be made. */
const FALLBACK_WORDS = 8

/** Markdown and decoration reduced to their text. */
function plain(text: string): string {
  return text
    .replace(/<think>[\s\S]*?<\/think>/g, '')
    .replace(/```[\s\S]*?(```|$)/g, ' ')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s{0,3}(#{1,6}\s+|>\s*|[-*+]\s+|\d+[.)]\s+)/gm, '')
    .replace(/(\*\*|__|~~|`)/g, '')
    .replace(/(^|[\s(])[*_](\S[^*_]*?)[*_](?=$|[\s).,!?:;])/g, '$1$2')
}

/** At most `max` characters, cut at the last space before the limit when that keeps most of it. */
function cap(text: string, max: number): string {
  if (text.length <= max) return text
  const cut = text.slice(0, max - 1)
  const space = cut.lastIndexOf(' ')
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`
}

/** A model's title answer as a title; empty when nothing usable is left. */
export function cleanTitle(answer: string): string {
  const line =
    plain(answer)
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? ''
  const text = line
    .replace(/^(title|标题)\s*[:：]\s*/i, '')
    .replace(/[.。!！]+$/, '')
    .replace(/^["'“”‘’「」『』《》]+|["'“”‘’「」『』《》]+$/g, '')
    .replace(/[.。!！]+$/, '')
    .replace(/\s+/g, ' ')
    .trim()
  return cap(text, TITLE_MAX_CHARS)
}

/** The first words of the user's first message, for a conversation no model could name. */
export function fallbackTitle(firstMessage: string): string {
  const words = plain(firstMessage).replace(/\s+/g, ' ').trim().split(' ').filter(Boolean)
  // Text without spaces (Chinese, Japanese) is one "word": the character cap decides there.
  const text = words.slice(0, FALLBACK_WORDS).join(' ').replace(/[\s,;:.!?。！？]+$/, '')
  return cap(text, TITLE_MAX_CHARS)
}
