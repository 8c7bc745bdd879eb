/** JSON columns: `undefined` is stored as NULL and read back as `undefined`. */
export const toJson = (value: unknown): string | null => (value === undefined || value === null ? null : JSON.stringify(value))

export function fromJson<T>(text: string | null | undefined): T | undefined {
  if (text === null || text === undefined) return undefined
  return JSON.parse(text) as T
}

/** NULL → undefined, for optional DTO fields. */
export const opt = <T>(value: T | null): T | undefined => (value === null ? undefined : value)
