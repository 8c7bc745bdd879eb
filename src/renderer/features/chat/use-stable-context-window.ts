import { useRef } from 'react'

/**
 * The current model's context window, kept while the picker's lists are refreshed or briefly
 * lack the model (the token counter flickered between "≈N tokens" and "≈N of M
 * tokens"). It changes only when the model changes or a new value is known.
 */
export function useStableContextWindow(current: { providerId: string; modelId: string } | undefined, known: number | undefined): number | undefined {
  const seen = useRef(new Map<string, number>())
  if (!current) return undefined
  const key = `${current.providerId}/${current.modelId}`
  if (known !== undefined) seen.current.set(key, known)
  return seen.current.get(key)
}
