/** 1 credit = 1e-6 USD (a micro-dollar). */
export const CREDITS_PER_USD = 1_000_000

/**
 * CNY per USD used when no rate is configured. It matches the reference recordings
 * (2.1 CNY/M tokens × 100k tokens → 29,495 credits); pass `usdToCnyRate` for a current rate.
 */
export const DEFAULT_USD_TO_CNY = 7.12

/** Round-off from binary floating point (0.0028 × 1e6 = 2800.0000000000005) must not cost a credit. */
const clean = (value: number) => Number(value.toFixed(6))

/** Credits for an amount in USD, rounded up: a started micro-dollar is charged. */
export const usdToCredits = (usd: number): number => Math.ceil(clean(usd * CREDITS_PER_USD))

export function toUsd(amount: number, currency: 'USD' | 'CNY', usdToCnyRate = DEFAULT_USD_TO_CNY): number {
  return currency === 'CNY' ? amount / usdToCnyRate : amount
}
