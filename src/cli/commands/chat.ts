import type { CliCommand, CliIO } from '../command'
import { parseFlags, readStdin } from '../command'
import { AppErrorException } from '../../shared/errors/app-error'
import type { StreamEvent, ToolCall } from '../../shared/stream/events'
import type { ChatMessage, ChatRequest, ReasoningEffort } from '../../core/runtime/types'
import { jsonEventWriter } from '../json-events'

const USAGE =
  'switchboard chat <provider>/<model> (custom:<id>/<model> for a custom provider) [--data-dir DIR] [--base-url URL] [--api-key-env VAR] [--system TEXT] [--temperature N] [--top-p N] [--max-tokens N] [--reasoning-effort minimal|low|medium|high] [--idle-timeout SECONDS] [--json] [--tool-server COMMAND|URL]... [--tools-optional] [--yes] [PROMPT | -]\n  A --tool-server that cannot start ends the run (exit 1) naming it; with --tools-optional the chat goes on without its tools.'

/** Exit statuses: 0 stopped normally, 1 provider error, 2 usage, 3 interrupted, 130 cancelled (Ctrl-C). */
const EXIT = { ok: 0, error: 1, usage: 2, interrupted: 3, cancelled: 130 } as const

/**
 * Buffers output lines and writes them in large blocks: one write per event would make a
 * long `--json` stream cost a system call per token.
 */
export class BufferedWriter {
  private pending = ''
  constructor(private readonly stream: NodeJS.WritableStream, private readonly limit = 64 * 1024) {}
  write(text: string): void {
    this.pending += text
    if (this.pending.length >= this.limit) this.flush()
  }
  flush(): void {
    if (this.pending) this.stream.write(this.pending)
    this.pending = ''
  }
}

function number(flags: Map<string, string | true>, name: string): number | undefined {
  const value = flags.get(name)
  if (value === undefined) return undefined
  const n = Number(value)
  if (value === true || !Number.isFinite(n)) throw new Error(`--${name} needs a number`)
  return n
}

export const chatCommand: CliCommand = {
  name: 'chat',
  summary: 'Chat with a model (streams text to stdout, reasoning to stderr)',
  usage: USAGE,
  async run(args: string[], io: CliIO): Promise<number> {
    const { flags, lists, positionals } = parseFlags(args, {
      booleans: ['json', 'yes', 'tools-optional'],
      strings: ['data-dir', 'base-url', 'api-key-env', 'system', 'temperature', 'top-p', 'max-tokens', 'reasoning-effort', 'idle-timeout'],
      repeatable: ['tool-server']
    })
    // The runtime and its SDKs load when the command runs, not when `--help` lists it (commands/index.ts).
    const { parseTarget, runtimeForCli } = await import('../../core/runtime/key-source')
    const target = parseTarget(positionals[0])
    if (!target) {
      io.stderr.write(`Usage: ${USAGE}\n`)
      return EXIT.usage
    }
    const json = flags.get('json') === true
    let prompt = positionals.slice(1).join(' ')
    if (prompt === '-' || (!prompt && io.stdin.isTTY !== true)) prompt = await readStdin(io.stdin)
    if (!prompt.trim()) {
      io.stderr.write('No prompt: pass it as an argument or on stdin (-).\n')
      return EXIT.usage
    }
    const effort = flags.get('reasoning-effort')
    if (effort !== undefined && !['minimal', 'low', 'medium', 'high'].includes(String(effort))) {
      io.stderr.write('--reasoning-effort must be minimal, low, medium or high\n')
      return EXIT.usage
    }
    const messages: ChatMessage[] = []
    const system = flags.get('system')
    if (typeof system === 'string') messages.push({ role: 'system', content: system })
    messages.push({ role: 'user', content: prompt })
    const request: ChatRequest = { model: target.model, messages }
    const temperature = number(flags, 'temperature')
    const topP = number(flags, 'top-p')
    const maxTokens = number(flags, 'max-tokens')
    const idle = number(flags, 'idle-timeout')
    if (temperature !== undefined) request.temperature = temperature
    if (topP !== undefined) request.top_p = topP
    if (maxTokens !== undefined) request.max_tokens = maxTokens
    if (typeof effort === 'string') request.reasoning_effort = effort as ReasoningEffort

    const out = new BufferedWriter(io.stdout)
    const err = new BufferedWriter(io.stderr, 1)
    const controller = new AbortController()
    const onSigint = () => controller.abort()
    const cleanup: Array<() => Promise<void>> = []
    process.once('SIGINT', onSigint)
    try {
      // The built-in engine finds models in the app's data folder, and stops with the command.
      const engine = target.providerId === 'builtin' ? await (await import('./builtin')).configureCliEngine(new Map(), io.env) : undefined
      if (engine) cleanup.push(() => engine.closeBuiltinEngine())
      const runtime = await runtimeForCli(target.providerId, flags, io.env)
      if (!runtime.chat) {
        io.stderr.write(`${target.providerId} does not offer chat.\n`)
        return EXIT.usage
      }
      let stop: string | undefined
      let error: StreamEvent | undefined
      let reasoningOpen = false
      const toolServers = lists.get('tool-server') ?? []
      const lines = jsonEventWriter((line) => out.write(line))
      const onEvent = (event: StreamEvent | { type: `tool_${string}`; data: unknown }) => {
        if (json) lines.push(event)
        else if (event.type === 'text') {
          if (reasoningOpen) {
            err.write('\n')
            reasoningOpen = false
          }
          out.write(event.data)
          if (io.stdout.isTTY) out.flush()
        } else if (event.type === 'reasoning') {
          reasoningOpen = true
          err.write(event.data)
        } else if (event.type === 'retry') err.write(`[retrying in ${Math.round(event.data.waitMs / 100) / 10} s: ${event.data.reason}]\n`)
        else if (event.type === 'tool_calls') for (const call of event.data as ToolCall[]) if (call.function.name) err.write(`[tool call ${call.function.name}]\n`)
        if (event.type === 'stop') stop = event.data
        if (event.type === 'error') error = event
      }
      const idleTimeoutMs = idle === undefined ? undefined : idle * 1000
      // The one model caller, made as the app makes it: priced, and each call written to the data folder's usage log.
      const [{ createModelCaller }, { cliUsageLog }, { dataDirFrom }] = await Promise.all([import('../../core/caller/create-caller'), import('../usage-log'), import('../data-dir')])
      const usage = await cliUsageLog(dataDirFrom(flags, io.env))
      cleanup.push(async () => usage.close())
      const caller = createModelCaller({ runtimeFor: async () => runtime, usage })
      // Tools: with --tool-server the reply runs through the tool loop.
      if (toolServers.length)
        await (await import('../tool-chat')).runToolChat(
          caller,
          runtime.id,
          request,
          toolServers,
          { yes: flags.get('yes') === true, json, toolsOptional: flags.get('tools-optional') === true, signal: controller.signal, ...(idleTimeoutMs !== undefined ? { idleTimeoutMs } : {}) },
          io,
          onEvent
        )
      else {
        const { model, messages: sent, ...params } = request
        // The runtime's id is the app's provider id (custom:<id> on the command line is custom-<id>), as its usage rows carry it.
        const call = caller.run({ target: { providerId: runtime.id, modelId: model }, scene: 'Conversation', messages: sent, params, signal: controller.signal, call: { idleTimeoutMs } })
        for await (const event of call) onEvent(event as StreamEvent)
      }
      lines.end()
      if (!json) out.write('\n')
      out.flush()
      err.flush()
      if (error?.type === 'error') io.stderr.write(`error: ${error.data.errorType}: ${error.data.message}\n`)
      if (stop === 'cancelled') return EXIT.cancelled
      if (stop === 'interrupted') {
        if (!error) io.stderr.write('error: interrupted: the stream ended before the reply finished\n')
        return EXIT.interrupted
      }
      if (error || stop === 'error' || stop === 'content_filter') return EXIT.error
      return EXIT.ok
    } catch (e) {
      out.flush()
      if (lists.get('tool-server')?.length && e instanceof (await import('../tool-chat')).ToolServerUnavailable) {
        io.stderr.write(`error: ${e.message}\n`)
        return EXIT.error
      }
      if (e instanceof AppErrorException) {
        io.stderr.write(`error: ${e.error.errorType}: ${e.error.message}\n`)
        return EXIT.error
      }
      throw e
    } finally {
      process.removeListener('SIGINT', onSigint)
      for (const step of cleanup) await step()
    }
  }
}
