// The standard ratios of product.md §5 (1:1 default) live in each model's catalogue entry;
// tests/unit/catalogue/image-params.test.ts checks them.

/** "16:9" → 1.777…; undefined for anything that is not two positive numbers ("auto"). */
export function parseAspectRatio(ratio: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*:\s*(\d+(?:\.\d+)?)\s*$/.exec(ratio)
  if (!m) return undefined
  const w = Number(m[1])
  const h = Number(m[2])
  return w > 0 && h > 0 ? w / h : undefined
}

export interface AspectRatioBounds {
  min: number
  max: number
  tolerance: number
}

/** The bounds one provider's API accepts (providers.md §5): 9/21 … 21/9 with tolerance 0.001. */
export const BFL_ASPECT_RATIO_BOUNDS: AspectRatioBounds = { min: 9 / 21, max: 21 / 9, tolerance: 0.001 }

/**
 * Keeps the ratios within the bounds. Values that are not ratios ("auto") are not out of
 * range and stay.
 */
export function filterAspectRatios(ratios: readonly string[], bounds: AspectRatioBounds = BFL_ASPECT_RATIO_BOUNDS): string[] {
  return ratios.filter((ratio) => {
    const value = parseAspectRatio(ratio)
    return value === undefined || (value >= bounds.min - bounds.tolerance && value <= bounds.max + bounds.tolerance)
  })
}
