import type { RawPullEvent } from '../../../../shared/local/pull-progress'

/** A progress line of /api/pull as the SDK yields it; every field may be missing. */
export interface OllamaProgressLine {
  status?: string
  digest?: string
  total?: number
  completed?: number
}

const isAbort = (error: unknown) =>
  typeof error === 'object' && error !== null && ((error as Error).name === 'AbortError' || (error as { code?: string }).code === 'ABORT_ERR')

/**
 * Turns the SDK's pull iterator into the raw events of providers.md §4: 'pulling manifest'
 * is skipped, other statuses forwarded with completed, digest, total and model; an abort
 * ends the stream with `{ status: 'cancelled' }` and any other failure with
 * `{ status: 'error', error, model }` instead of throwing, so a consumer sees how it ended.
 */
export async function* toRawPullEvents(source: AsyncIterable<OllamaProgressLine>, model: string): AsyncGenerator<RawPullEvent> {
  try {
    for await (const line of source) {
      const event = toRawPullEvent(line, model)
      if (event) yield event
    }
  } catch (error) {
    yield toRawPullEnding(error, model)
  }
}

/** One line → its raw event, or undefined for the skipped 'pulling manifest'. */
export function toRawPullEvent(line: OllamaProgressLine, model: string): RawPullEvent | undefined {
  const status = line.status ?? ''
  if (status === 'pulling manifest') return undefined
  const event: { status: string; model: string; completed?: number; total?: number; digest?: string } = { status, model }
  if (line.completed !== undefined) event.completed = line.completed
  if (line.digest !== undefined) event.digest = line.digest
  if (line.total !== undefined) event.total = line.total
  return event
}

/** How a failed source ends the stream: `cancelled` for an abort, else `error` with the message. */
export function toRawPullEnding(error: unknown, model: string): RawPullEvent {
  if (isAbort(error)) return { status: 'cancelled' }
  return { status: 'error', model, error: error instanceof Error ? error.message : String(error) }
}
