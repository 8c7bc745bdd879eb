/** Epoch-seconds threshold for created values (product.md §9): older "timestamps" are not dates. */
export const CREATED_EPOCH_THRESHOLD = 1.63e9

const ISO_UTC = /^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]00:?00)$/

/**
 * The release date of a fetched model (product.md §4): a number above 1.63e9 is epoch seconds
 * (13 digits: milliseconds) turned into YYYY-MM-DD (UTC); an ISO UTC string is cut to its date;
 * any other string is kept as it is; otherwise the fallback (entry or catalogue) applies.
 */
export function toReleasedAt(created: unknown, fallback?: string): string | undefined {
  if (typeof created === 'number' && Number.isFinite(created) && created > CREATED_EPOCH_THRESHOLD) {
    const ms = String(Math.trunc(created)).length === 13 ? created : created * 1000
    return new Date(ms).toISOString().slice(0, 10)
  }
  if (typeof created === 'string' && created.length > 0) {
    const iso = ISO_UTC.exec(created)
    return iso ? iso[1] : created
  }
  return fallback
}
