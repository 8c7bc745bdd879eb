/**
 * What one call cost, as the pricing module computed it from a UsageRecord. Stored with
 * the message or image so the bill does not change when catalogue prices change later.
 */
export interface CostBreakdown {
  /** USD unless the model's pricing says otherwise (product.md §9). */
  currency: 'USD' | 'CNY' | string
  total: number
  /** One line per pricing unit that applied (textInput, textOutput, textInput_cacheRead…). */
  items?: Array<{ name: string; units: number; unit: string; rate: number; cost: number }>
}
