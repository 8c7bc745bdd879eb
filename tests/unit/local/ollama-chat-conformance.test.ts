import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { ollamaChunkTransformer, type OllamaChatChunk } from '../../../src/core/runtime/providers/ollama/ollama-chunk-transformer'
import type { StreamEvent } from '../../../src/shared/stream/events'
import { CONFORMANCE_DIR } from '../../fixtures/fixture-paths'

// Conformance: stream-vectors/ollama-chat.json through a small adapter: each case's chunks go
// through our transformer; events are compared as {event, data} after the normalisations below.
const VECTORS = CONFORMANCE_DIR

interface ChatCase {
  case: string
  input_chunks: OllamaChatChunk[]
  output_events: { id: string; event: string; data: unknown }[]
}
const file = JSON.parse(readFileSync(`${VECTORS}/stream-vectors/ollama-chat.json`, 'utf8')) as { cases: ChatCase[] }

/**
 * Deliberate differences, in one place (applied to the recording before comparing):
 * - Stop reason: upstream says 'finished'; our StopReason vocabulary says 'stop' (or
 *   'tool_calls' after a tool call, 'length' when Ollama says so).
 * - A `<think>` or `</think>` chunk that is only the tag: upstream emits an empty
 *   reasoning / text event; we emit nothing for an empty piece.
 * - Tool-call ids are generated (name_index_random); compared by shape only.
 * - 'tools use with a done': upstream emits no stop when the tool call and `done` share a
 *   chunk; every stream of ours ends with exactly one stop, so ours adds 'tool_calls'.
 * - We add a usage event after stop when Ollama sends eval counts (the tools cases).
 */
const EXCEPTIONS = [
  "stop 'finished' → ours 'stop' / 'tool_calls'",
  'empty reasoning/text events for tag-only chunks are not emitted',
  'generated tool-call ids compared by pattern',
  "'tools use with a done' gains the stop every stream ends with",
  'usage from prompt_eval_count/eval_count added after stop'
]

function normaliseExpected(c: ChatCase): { event: string; data: unknown }[] {
  const calledTools = c.output_events.some((e) => e.event === 'tool_calls')
  const out = c.output_events
    .filter((e) => !((e.event === 'reasoning' || e.event === 'text') && e.data === ''))
    .map((e) => ({ event: e.event, data: e.event === 'stop' && e.data === 'finished' ? (calledTools ? 'tool_calls' : 'stop') : e.data }))
  const last = c.input_chunks.at(-1)
  if (last?.done && !out.some((e) => e.event === 'stop')) out.push({ event: 'stop', data: calledTools ? 'tool_calls' : 'stop' })
  if (last?.done && (last.eval_count !== undefined || last.prompt_eval_count !== undefined)) {
    const input = last.prompt_eval_count ?? 0
    const output = last.eval_count ?? 0
    out.push({
      event: 'usage',
      data: { inputTextTokens: input, totalInputTokens: input, outputTextTokens: output, totalOutputTokens: output, totalTokens: input + output }
    })
  }
  return out
}

function run(chunks: OllamaChatChunk[]): { event: string; data: unknown }[] {
  const transformer = ollamaChunkTransformer()
  const events: StreamEvent[] = []
  for (const chunk of chunks) transformer.transform(chunk, (e) => events.push(e))
  transformer.flush?.((e) => events.push(e))
  return events.map((e) => {
    if (e.type !== 'tool_calls') return { event: e.type, data: e.data }
    return { event: e.type, data: e.data.map((call) => ({ ...call, id: /^.+_\d+_[a-z0-9]+$/.test(call.id) ? '<generated>' : call.id })) }
  })
}

let passed = 0
afterAll(() => {
  console.log(`ollama-chat conformance: ${passed}/${file.cases.length} passed (${((100 * passed) / file.cases.length).toFixed(0)}%)`)
  for (const e of EXCEPTIONS) console.log(`  exception: ${e}`)
})

describe('ollama chat conformance', () => {
  for (const c of file.cases) {
    it(c.case, () => {
      const expected = normaliseExpected(c).map((e) =>
        e.event === 'tool_calls' ? { ...e, data: (e.data as { id: string }[]).map((call) => ({ ...call, id: '<generated>' })) } : e
      )
      expect(run(c.input_chunks)).toEqual(expected)
      passed++
    })
  }
})
