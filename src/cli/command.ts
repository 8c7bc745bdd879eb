/** One `switchboard <name>` command. Commands write to the given streams, never to process directly. */
export interface CliCommand {
  name: string
  /** One line for `switchboard --help`. */
  summary: string
  usage: string
  run(args: string[], io: CliIO): Promise<number>
}

export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number }
  stderr: NodeJS.WritableStream & { isTTY?: boolean }
  stdin: NodeJS.ReadableStream & { isTTY?: boolean }
  env: NodeJS.ProcessEnv
}

/** Minimal flag parser: --name value, --name=value, boolean flags, and positionals. */
export function parseFlags(args: string[], booleans: string[] = [], repeatable: string[] = []) {
  const flags = new Map<string, string | true>()
  const lists = new Map<string, string[]>()
  const positionals: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '--') {
      positionals.push(...args.slice(i + 1))
      break
    }
    const match = /^--([a-z][a-z0-9-]*)(?:=(.*))?$/.exec(arg)
    if (!match) {
      positionals.push(arg)
      continue
    }
    const name = match[1]!
    let value: string | true
    if (match[2] !== undefined) value = match[2]
    else if (booleans.includes(name)) value = true
    else {
      const next = args[i + 1]
      if (next === undefined) throw new Error(`--${name} needs a value`)
      value = next
      i++
    }
    if (repeatable.includes(name) && typeof value === 'string') lists.set(name, [...(lists.get(name) ?? []), value])
    else flags.set(name, value)
  }
  return { flags, lists, positionals }
}
