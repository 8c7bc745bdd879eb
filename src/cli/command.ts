import { parseArgs, type ParseArgsOptionsConfig } from 'node:util'
import type { UtilityProcessSpawner } from '../core/engine/engine-process'

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
  /**
   * Set when the CLI runs inside the installed app's executable: how to start the built-in engine
   * there (an Electron utilityProcess; the app binary cannot be forked as Node).
   */
  engineUtilityProcess?: UtilityProcessSpawner
}

/** All of stdin as UTF-8 text (a prompt or input lines piped in, or `-`). */
export async function readStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  const parts: Buffer[] = []
  for await (const chunk of stdin) parts.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer))
  return Buffer.concat(parts).toString('utf8')
}

/** Bad usage (an unknown flag, a flag without its value): main prints it and exits 2. */
export class UsageError extends Error {}

export interface FlagSpec {
  /** Flags that take no value (`--json`). */
  booleans?: readonly string[]
  /** Flags that take one value (`--base-url URL` or `--base-url=URL`). */
  strings?: readonly string[]
  /** Flags that take a value and may repeat (`--image a.png --image b.png`). */
  repeatable?: readonly string[]
}

/**
 * A command's flags through `node:util` parseArgs in strict mode: a flag the command does not
 * declare is an error naming it (exit 2), never silently ignored, so a typo like `--temprature`
 * cannot send a request without the setting the user asked for.
 */
export function parseFlags(args: string[], spec: FlagSpec = {}) {
  const options: ParseArgsOptionsConfig = {}
  for (const name of spec.booleans ?? []) options[name] = { type: 'boolean' }
  for (const name of spec.strings ?? []) options[name] = { type: 'string' }
  for (const name of spec.repeatable ?? []) options[name] = { type: 'string', multiple: true }
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: true })
  } catch (error) {
    throw new UsageError(usageMessage(error))
  }
  const flags = new Map<string, string | true>()
  const lists = new Map<string, string[]>()
  for (const [name, value] of Object.entries(parsed.values)) {
    if (Array.isArray(value)) lists.set(name, value.filter((v): v is string => typeof v === 'string'))
    else if (value === true || typeof value === 'string') flags.set(name, value)
  }
  return { flags, lists, positionals: parsed.positionals }
}

/** parseArgs' messages, shortened to what the user needs: which flag, and what was wrong. */
function usageMessage(error: unknown): string {
  const code = (error as { code?: string }).code
  const message = error instanceof Error ? error.message : String(error)
  const flag = /'(-[^' ]+)/.exec(message)?.[1]
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag) return `unknown flag ${flag}`
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag) {
    if (/does not take an argument/.test(message)) return `${flag} takes no value`
    if (/ambiguous/.test(message)) return `${flag} needs a value; for one starting with a dash write ${flag}=VALUE`
    return `${flag} needs a value`
  }
  return message.split('\n')[0]!
}
