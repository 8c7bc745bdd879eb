const stripParentheses = (text: string) => text.replace(/\s*[(（][^()（）]*[)）]/g, '').replace(/\s{2,}/g, ' ').trim()

/**
 * Display names have parenthesised text removed and are trimmed (product.md §4):
 * "GPT-4o (2024-08-06)" → "GPT-4o". A model without a name shows its id, cleaned the same way
 * ("my-local-finetune (q4)" → "my-local-finetune"); only what would become empty keeps the id.
 */
export function cleanDisplayName(name: string | undefined, fallbackId: string): string {
  const cleaned = stripParentheses(name ?? '') || stripParentheses(fallbackId)
  return cleaned.length > 0 ? cleaned : fallbackId
}
