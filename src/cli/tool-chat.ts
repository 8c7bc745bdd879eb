import { createInterface } from 'node:readline/promises'
import type { CliIO } from './command'
import { ToolService } from '../core/tools/tool-service'
import { ModelCaller } from '../core/services/model-caller'
import type { JsonValue } from '../shared/data/json'
import { DEFAULT_STEP_LIMIT } from '../shared/tools/types'
import type { ChatRequest, ProviderRuntime, StreamEvent } from '../core/runtime/types'

/** A tool server the user asked for could not start (and --tools-optional was not given). */
export class ToolServerUnavailable extends Error {}

/**
 * `switchboard chat --tool-server <command|url> [--yes]`: the tool loop headless. Servers
 * given on the command line live for this run only; nothing is saved. Without --yes each call
 * is asked for on the terminal (y/N); with no terminal, calls are denied and the model told so.
 * A server that cannot start ends the run before the model is asked (the user asked for its
 * tools), unless --tools-optional says to go on without it. `onEvent` receives every event,
 * the tool loop's too, in the order they happen.
 */
export async function runToolChat(
  runtime: ProviderRuntime,
  request: ChatRequest,
  servers: string[],
  options: { yes: boolean; json: boolean; signal: AbortSignal; idleTimeoutMs?: number; stepLimit?: number; toolsOptional?: boolean },
  io: CliIO,
  onEvent: (event: StreamEvent | { type: `tool_${string}`; data: unknown }) => void
): Promise<void> {
  const settings: Record<string, JsonValue | undefined> = {}
  const service = new ToolService({ get: () => settings, set: (patch) => Object.assign(settings, patch) }, { set: async () => undefined, delete: async () => undefined, readForRuntime: async () => undefined })
  try {
    const ids = servers.map((spec) => service.addEphemeral(spec).id)
    const statuses = await service.connect(ids)
    for (const status of statuses) {
      if (status.state === 'ready') {
        io.stderr.write(`[tools: ${status.name} ready with ${status.tools.length} tools]\n`)
        continue
      }
      const why = `${status.error ?? status.state}${status.stderrTail ? `\n${status.stderrTail.trim().split('\n').slice(-5).join('\n')}` : ''}`
      if (!options.toolsOptional)
        throw new ToolServerUnavailable(
          `the tool server ${status.name} could not start: ${why}\nCheck its command or address, or pass --tools-optional to chat without its tools.`
        )
      io.stderr.write(`[tools: ${status.name} unavailable: ${why} — continuing without its tools (--tools-optional)]\n`)
    }
    const offered = await service.toolsFor({ servers: ids, builtins: [] })
    const ask = !options.yes && io.stdin.isTTY === true ? createInterface({ input: io.stdin, output: io.stderr }) : undefined
    try {
      // The one model caller, with the one tool loop; the CLI keeps no usage log and prices nothing here.
      const caller = new ModelCaller({ runtimeFor: async () => runtime, price: async () => undefined })
      const { model, messages, ...params } = request
      const loop = caller.run({
        target: { providerId: runtime.id, modelId: model },
        scene: 'Conversation',
        messages,
        params,
        tools: { service, offered, stepLimit: options.stepLimit ?? DEFAULT_STEP_LIMIT, autoApprove: options.yes },
        signal: options.signal,
        call: options.idleTimeoutMs !== undefined ? { idleTimeoutMs: options.idleTimeoutMs } : {}
      })
      for await (const event of loop) {
        if (event.type === 'tool_approval') {
          const req = event.data
          let decision: 'allow' | 'deny' = 'deny'
          if (ask) decision = /^y(es)?$/i.test((await ask.question(`Run ${req.serverName} › ${req.tool} with\n${req.arguments}\n? [y/N] `)).trim()) ? 'allow' : 'deny'
          else io.stderr.write(`[tool ${req.tool} denied: no terminal to ask; pass --yes to allow tool calls]\n`)
          service.answer(req.messageId, req.callId, decision)
          if (options.json) onEvent({ type: 'tool_approval', data: { ...req, decision } })
        } else if (event.type === 'tool_result') {
          if (options.json) onEvent(event)
          else io.stderr.write(`[tool ${event.data.tool ?? event.data.toolCallId}: ${event.data.outcome ?? 'ok'}${event.data.isError ? ` — ${event.data.content.slice(0, 300)}` : ''}]\n`)
        } else if (event.type === 'tool_running' || event.type === 'tool_progress' || event.type === 'tool_step') {
          if (options.json) onEvent(event)
        } else onEvent(event)
      }
    } finally {
      ask?.close()
    }
  } finally {
    await service.close()
  }
}
