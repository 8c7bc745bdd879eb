import { describe, expect, it, vi } from 'vitest'
import { ThinkTagSplitter, type TextPiece } from '../../../src/core/runtime/stream/think-tag-splitter'
import { ToolCallMerger, ToolCallDeltaNormaliser } from '../../../src/core/runtime/stream/tool-call-merger'
import { SpeedTracker } from '../../../src/core/runtime/stream/speed-tracker'
import { IdleWatchdog } from '../../../src/core/runtime/stream/idle-watchdog'
import { parseRetryAfter, retryDecision } from '../../../src/core/runtime/retry'
import { maskEndpoint, redactText } from '../../../src/shared/errors/redact'

const join = (pieces: TextPiece[], type: TextPiece['type']) => pieces.filter((p) => p.type === type).map((p) => p.data).join('')

describe('ThinkTagSplitter', () => {
  const whole = 'Intro <think>step one, step <two></think>The answer <b>bold</b>.'
  it('gives the same split for every way of cutting the text in two and in three', () => {
    const expected = { text: 'Intro The answer <b>bold</b>.', reasoning: 'step one, step <two>' }
    for (let i = 0; i <= whole.length; i++) {
      for (let j = i; j <= whole.length; j += 3) {
        const splitter = new ThinkTagSplitter()
        const pieces = [...splitter.push(whole.slice(0, i)), ...splitter.push(whole.slice(i, j)), ...splitter.push(whole.slice(j)), ...splitter.flush()]
        expect({ text: join(pieces, 'text'), reasoning: join(pieces, 'reasoning') }, `cut at ${i},${j}`).toEqual(expected)
      }
    }
  })

  it('character by character', () => {
    const splitter = new ThinkTagSplitter()
    const pieces = [...whole].flatMap((c) => splitter.push(c)).concat(splitter.flush())
    expect(join(pieces, 'reasoning')).toBe('step one, step <two>')
  })

  it('a stream ending on a partial tag keeps the letters', () => {
    const splitter = new ThinkTagSplitter()
    const pieces = [...splitter.push('a <thi'), ...splitter.flush()]
    expect(join(pieces, 'text')).toBe('a <thi')
  })
})

describe('tool calls', () => {
  it('normaliser fills index, id and type; merger joins arguments by index', () => {
    const normaliser = new ToolCallDeltaNormaliser()
    const merger = new ToolCallMerger()
    merger.add(normaliser.normalise([{ index: 0, id: 'call_a', type: 'function', function: { name: 'search', arguments: '{"q":' } }]))
    merger.add(normaliser.normalise([{ index: 1, id: 'call_b', function: { name: 'fetch', arguments: '' } }]))
    merger.add(normaliser.normalise([{ index: 0, function: { arguments: '"x"}' } }]))
    merger.add(normaliser.normalise([{ index: 1, function: { arguments: '{}' } }]))
    expect(merger.result()).toEqual([
      { id: 'call_a', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' }, index: 0 },
      { id: 'call_b', type: 'function', function: { name: 'fetch', arguments: '{}' }, index: 1 }
    ])
    expect(() => normaliser.normalise([{ index: 0, function: null }])).toThrow('Invalid tool call: function is null')
  })
})

describe('SpeedTracker', () => {
  it('ttft from the start, tps from output tokens over the generation time', () => {
    let now = 1000
    const speed = new SpeedTracker(now, () => now)
    now = 1250
    speed.content()
    now = 3250
    speed.content()
    speed.setOutputTokens(100)
    expect(speed.result()).toEqual({ ttft: 250, tps: 50 })
  })
  it('a long reply times its last content event without reading the clock per event', () => {
    let now = 0
    let reads = 0
    const speed = new SpeedTracker(0, () => {
      reads++
      return now
    })
    for (let i = 1; i <= 1000; i++) {
      now = 100 + i * 10
      speed.content()
    }
    // 1,000 events over 9,990 ms after the first: ~100 per second, timed to the last event.
    expect(speed.result()).toEqual({ ttft: 110, tps: 100.1 })
    expect(reads).toBeLessThan(200)
  })
  it('no content, no speed', () => {
    expect(new SpeedTracker(0, () => 0).result()).toBeUndefined()
  })
  it('no tokens per second from a burst too short to time (a tool call arriving whole)', () => {
    let now = 1000
    const speed = new SpeedTracker(now, () => now)
    now = 1400
    speed.content()
    now = 1400.04
    speed.content()
    speed.setOutputTokens(20)
    expect(speed.result()).toEqual({ ttft: 400 })
  })
})

describe('IdleWatchdog', () => {
  it('fires once after the idle time and not while touched', () => {
    // A clock the test moves: no wall-clock waits, the same outcome on a loaded machine.
    vi.useFakeTimers()
    try {
      const fired = vi.fn()
      const dog = new IdleWatchdog(80, fired)
      for (let i = 0; i < 5; i++) {
        vi.advanceTimersByTime(30)
        dog.touch()
      }
      expect(fired).not.toHaveBeenCalled()
      vi.advanceTimersByTime(79)
      expect(fired).not.toHaveBeenCalled()
      vi.advanceTimersByTime(200)
      expect(fired).toHaveBeenCalledTimes(1)
      expect(dog.expired).toBe(true)
      dog.stop()
    } finally {
      vi.useRealTimers()
    }
  })
})

describe('retry', () => {
  it('reads retry-after-ms, seconds and HTTP dates', () => {
    expect(parseRetryAfter({ 'retry-after-ms': '250' })).toBe(250)
    expect(parseRetryAfter({ 'retry-after': '2' })).toBe(2000)
    expect(parseRetryAfter({ 'retry-after': new Date(10_000).toUTCString() }, 4000)).toBe(6000)
    expect(parseRetryAfter({})).toBeUndefined()
  })
  it('retries 429, 5xx and refused connections; not 400/401', () => {
    expect(retryDecision({ status: 429, headers: { 'retry-after': '1' } })).toMatchObject({ retryable: true, retryAfterMs: 1000 })
    expect(retryDecision({ status: 503 }).retryable).toBe(true)
    expect(retryDecision({ status: 401 }).retryable).toBe(false)
    expect(retryDecision(Object.assign(new Error('Connection error.'), { name: 'APIConnectionError' })).retryable).toBe(true)
  })
})

describe('redaction', () => {
  it('masks hosts, keeps local ones, removes keys of known shapes and exact secrets', () => {
    expect(maskEndpoint('https://api.openai.com/v1')).not.toContain('openai')
    expect(maskEndpoint('http://127.0.0.1:1234/v1')).toBe('http://127.0.0.1:1234/v1')
    const text = redactText('key sk-proj-abcdefghijklmnop and AIzaSyA1234567890abcdefghijk and mine=custom-secret-value at https://x.example.org/v1', ['custom-secret-value'])
    expect(text).not.toMatch(/sk-proj|AIzaSy|custom-secret-value|example\.org/)
  })
})
