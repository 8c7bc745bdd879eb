import { createInterface } from 'node:readline/promises'
import type { CliIO } from './command'
import { ToolService } from '../core/tools/tool-service'
import type { ModelCaller } from '../core/caller/model-caller'
import { featureSettingsOver } from '../core/store/repositories/settings'
import type { JsonValue } from '../shared/data/json'
import { DEFAULT_STEP_LIMIT, type ElicitationAnswer, type ElicitationRequest, type ElicitationValue } from '../shared/tools/types'
import { elicitationDefaults, fieldOptions, validateElicitation } from '../shared/tools/elicitation'
import type { ChatRequest, StreamEvent } from '../core/runtime/types'

/** A tool server the user asked for could not start (and --tools-optional was not given). */
export class ToolServerUnavailable extends Error {}

/**
 * `switchboard chat --tool-server <command|url> [--yes]`: the tool loop headless. Servers
 * given on the command line live for this run only; nothing is saved. Without --yes each call
 * is asked for on the terminal (y/N); with no terminal, calls are denied and the model told so.
 * A server that cannot start ends the run before the model is asked (the user asked for its
 * tools), unless --tools-optional says to go on without it. `onEvent` receives every event,
 * the tool loop's too, in the order they happen. `caller` is the command's one model caller: the
 * turns and a server's sampling requests are priced and logged like the app's.
 */
export async function runToolChat(
  caller: ModelCaller,
  providerId: string,
  request: ChatRequest,
  servers: string[],
  options: { yes: boolean; json: boolean; signal: AbortSignal; idleTimeoutMs?: number; stepLimit?: number; toolsOptional?: boolean },
  io: CliIO,
  onEvent: (event: StreamEvent | { type: `tool_${string}`; data: unknown }) => void
): Promise<void> {
  // Tool settings for this run only (the servers given on the command line), read through the table's definitions.
  const settings: Record<string, JsonValue | undefined> = {}
  const service = new ToolService(
    featureSettingsOver({ get: () => settings, set: (patch) => Object.assign(settings, patch) }),
    { set: async () => undefined, delete: async () => undefined, readForRuntime: async () => undefined },
    {
      // A server's sampling request (once approved) is answered by the chat's model, like a turn.
      sample: async ({ model, messages, maxTokens, temperature, stop, signal }) => {
        const answer = await caller.text({ target: model, scene: 'Conversation', messages, params: { max_tokens: maxTokens, ...(temperature !== undefined ? { temperature } : {}), ...(stop ? { stop } : {}) }, signal, clean: false })
        return { text: answer.text, model: answer.model }
      }
    }
  )
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
      const { model, messages, ...params } = request
      const loop = caller.run({
        target: { providerId, modelId: model },
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
          const question = req.sampling
            ? `${req.serverName} asks the model ${req.sampling.model.modelId} (at most ${req.sampling.maxTokens} tokens):\n${req.sampling.prompt}\nAllow? [y/N] `
            : `Run ${req.serverName} › ${req.tool} with\n${req.arguments}\n? [y/N] `
          if (ask) decision = /^y(es)?$/i.test((await ask.question(question)).trim()) ? 'allow' : 'deny'
          else if (req.sampling) io.stderr.write(`[${req.serverName} asked the model (sampling): denied, no terminal to ask; pass --yes to allow]\n`)
          else io.stderr.write(`[tool ${req.tool} denied: no terminal to ask; pass --yes to allow tool calls]\n`)
          service.answer(req.messageId, req.callId, decision)
          if (options.json) onEvent({ type: 'tool_approval', data: { ...req, decision } })
        } else if (event.type === 'tool_elicitation') {
          const req = event.data
          const answer = ask ? await askForm(ask, req) : undefined
          if (!answer) io.stderr.write(`[${req.serverName} asked: ${JSON.stringify(req.message)}: declined, no terminal to answer on]\n`)
          service.answerElicitation(req.messageId, req.callId, answer ?? { action: 'decline' })
          if (options.json) onEvent({ type: 'tool_elicitation', data: { ...req, action: answer?.action ?? 'decline' } })
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

/**
 * A server's question on the terminal: the message, then each field (Enter keeps the default;
 * an empty first answer declines). Asked again until the answers fit the schema.
 */
async function askForm(ask: ReturnType<typeof createInterface>, req: ElicitationRequest): Promise<ElicitationAnswer> {
  const go = (await ask.question(`${req.serverName} asks: ${req.message}\nAnswer? [y/N] `)).trim()
  if (!/^y(es)?$/i.test(go)) return { action: 'decline' }
  for (;;) {
    const content: Record<string, ElicitationValue> = elicitationDefaults(req.requestedSchema)
    for (const [name, field] of Object.entries(req.requestedSchema.properties)) {
      const options = fieldOptions(field)
      const hint = options ? ` (${options.map((o) => `${o.value}=${o.label}`).join(', ')}${field.type === 'array' ? '; comma-separated' : ''})` : field.type === 'boolean' ? ' (y/n)' : ''
      const shown = content[name] !== undefined ? ` [${String(content[name])}]` : ''
      const raw = (await ask.question(`  ${field.title ?? name}${hint}${shown}: `)).trim()
      if (!raw) continue
      if (field.type === 'boolean') content[name] = /^y(es)?|true$/i.test(raw)
      else if (field.type === 'number' || field.type === 'integer') content[name] = Number(raw)
      else if (field.type === 'array') content[name] = raw.split(',').map((v) => v.trim()).filter(Boolean)
      else content[name] = raw
    }
    const problems = Object.values(validateElicitation(req.requestedSchema, content))
    if (!problems.length) return { action: 'accept', content }
    ask.write?.(`${problems.join('\n')}\n`)
  }
}
