/**
 * Deep comparison that allows floating-point noise in numbers (1e-9 relative) and treats
 * `undefined` and a missing key alike. Returns the first difference as a path, or undefined.
 */
export function diffClose(actual: unknown, expected: unknown, path = '$'): string | undefined {
  if (typeof expected === 'number' && typeof actual === 'number') {
    const tolerance = Math.max(1e-9, Math.abs(expected) * 1e-9)
    return Math.abs(actual - expected) <= tolerance ? undefined : `${path}: ${actual} != ${expected}`
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: not an array`
    if (actual.length !== expected.length) return `${path}: length ${actual.length} != ${expected.length}`
    for (let i = 0; i < expected.length; i++) {
      const d = diffClose(actual[i], expected[i], `${path}[${i}]`)
      if (d) return d
    }
    return undefined
  }
  if (expected && typeof expected === 'object') {
    if (!actual || typeof actual !== 'object') return `${path}: expected an object, got ${JSON.stringify(actual)}`
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)])
    for (const key of keys) {
      const d = diffClose((actual as Record<string, unknown>)[key], (expected as Record<string, unknown>)[key], `${path}.${key}`)
      if (d) return d
    }
    return undefined
  }
  if (expected === null && actual === undefined) return undefined
  return Object.is(actual, expected) ? undefined : `${path}: ${JSON.stringify(actual)} != ${JSON.stringify(expected)}`
}
