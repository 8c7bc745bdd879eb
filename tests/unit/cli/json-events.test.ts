import { describe, expect, it } from 'vitest'
import { jsonEventWriter } from '../../../src/cli/json-events'

describe('chat --json lines', () => {
  it('writes text and reasoning exactly as JSON.stringify({ type, data }) would, whatever the characters', () => {
    const lines: string[] = []
    const writer = jsonEventWriter((line) => lines.push(line))
    const pieces = ['plain', 'a "quoted" \\ back\nslash\t', '中文 😀', '\u2028\u2029', '\ud800 lone', '</script>', '']
    for (const data of pieces) {
      writer.push({ type: 'text', data })
      writer.push({ type: 'reasoning', data })
    }
    writer.end()
    expect(lines).toEqual(pieces.flatMap((data) => [`${JSON.stringify({ type: 'text', data })}\n`, `${JSON.stringify({ type: 'reasoning', data })}\n`]))
    for (const line of lines) expect(JSON.parse(line)).toHaveProperty('type')
  })

  it('merges a streamed tool call into one line before the stop', () => {
    const lines: string[] = []
    const writer = jsonEventWriter((line) => lines.push(line))
    writer.push({ type: 'tool_calls', data: [{ id: 'c1', index: 0, type: 'function', function: { name: 'search', arguments: '{"q":' } }] })
    writer.push({ type: 'tool_calls', data: [{ id: 'c1', index: 0, type: 'function', function: { name: '', arguments: '"x"}' } }] })
    writer.push({ type: 'stop', data: 'tool_calls' })
    expect(lines.map((l) => JSON.parse(l) as { type: string; data: unknown })).toEqual([
      { type: 'tool_calls', data: [{ id: 'c1', index: 0, type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } }] },
      { type: 'stop', data: 'tool_calls' }
    ])
  })
})
