import type { StreamEvent } from '../../../src/shared/stream/events'
import type { CallOptions, ChatRequest, ProviderRuntime } from '../../../src/core/runtime/types'

export const SECRET = 'sk-live-SECRET-0123456789abcdef'

export async function collect(runtime: ProviderRuntime, request: Partial<ChatRequest> = {}, options: CallOptions = {}): Promise<StreamEvent[]> {
  const events: StreamEvent[] = []
  const full: ChatRequest = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...request }
  for await (const event of runtime.chat!(full, { idleTimeoutMs: 5000, ...options })) events.push(event)
  return events
}

export const textOf = (events: StreamEvent[]) =>
  events
    .filter((e) => e.type === 'text')
    .map((e) => e.data)
    .join('')

export const reasoningOf = (events: StreamEvent[]) =>
  events
    .filter((e) => e.type === 'reasoning')
    .map((e) => e.data)
    .join('')

export const stopOf = (events: StreamEvent[]) => {
  const stops = events.filter((e) => e.type === 'stop')
  if (stops.length !== 1) throw new Error(`expected exactly one stop event, got ${stops.length}: ${JSON.stringify(events)}`)
  return stops[0]!.data
}

export const errorOf = (events: StreamEvent[]) => {
  const error = events.find((e) => e.type === 'error')
  return error?.type === 'error' ? error.data : undefined
}
