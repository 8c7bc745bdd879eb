import { readFileSync } from 'node:fs'

/**
 * Reads a recorded Vitest snapshot file (`exports[`name`] = `…`;`) into plain values.
 * The bodies are JS-like literals: strings may span lines, `undefined` appears as a value,
 * and trailing commas are allowed; we turn each into JSON rather than evaluating it.
 */
export function readSnapshots(path: string): Map<string, unknown> {
  const text = readFileSync(path, 'utf8')
  const out = new Map<string, unknown>()
  const re = /exports\[`([^`]*)`\] = `\n([\s\S]*?)\n`;/g
  for (let m = re.exec(text); m; m = re.exec(text)) out.set(m[1]!, toValue(m[2]!))
  return out
}

function toValue(body: string): unknown {
  const strings: string[] = []
  // Protect strings first (they may hold newlines, commas and brackets).
  let json = body.replace(/"((?:[^"\\]|\\.)*)"/g, (_all, inner: string) => {
    strings.push(JSON.parse(`"${inner.replace(/\n/g, '\\n')}"`) as string)
    return `"\uE000${strings.length - 1}"`
  })
  json = json.replace(/:\s*undefined/g, ': null').replace(/^(\s*)undefined,/gm, '$1null,')
  json = json.replace(/,(\s*[\]}])/g, '$1')
  json = json.replace(/"\uE000(\d+)"/g, (_all, i: string) => JSON.stringify(strings[Number(i)]))
  return JSON.parse(json, (_k, v: unknown) => (v === null ? undefined : v))
}
