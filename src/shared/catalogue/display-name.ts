/**
 * Display names have parenthesised text removed and are trimmed (product.md §4):
 * "GPT-4o (2024-08-06)" → "GPT-4o". A name that would become empty keeps the id instead.
 */
export function cleanDisplayName(name: string | undefined, fallbackId: string): string {
  const cleaned = (name ?? '').replace(/\s*[(（][^()（）]*[)）]/g, '').replace(/\s{2,}/g, ' ').trim()
  return cleaned.length > 0 ? cleaned : fallbackId
}
