import { describe, expect, it } from 'vitest'
import { cleanTitle, fallbackTitle, TITLE_MAX_CHARS } from '../../../src/core/chat/title-text'

describe('conversation titles', () => {
  it('are plain text: markdown, labels, quotes and a trailing full stop go', () => {
    expect(cleanTitle('## **Planning** a _trip_ to `Kyoto`.')).toBe('Planning a trip to Kyoto')
    expect(cleanTitle('Title: "Greeting exchange"')).toBe('Greeting exchange')
    expect(cleanTitle('<think>hmm</think>\n\n- [Rust lifetimes](https://x.y) explained\nsecond line')).toBe('Rust lifetimes explained')
    expect(cleanTitle('标题：「旅行计划」。')).toBe('旅行计划')
    expect(cleanTitle('snake_case naming')).toBe('snake_case naming')
  })

  it('are capped at a word, with an ellipsis', () => {
    const long = cleanTitle('A very long title that a chatty model wrote instead of a short one for this conversation')
    expect(long.length).toBeLessThanOrEqual(TITLE_MAX_CHARS)
    expect(long).toMatch(/^A very long title that a chatty model wrote instead of a…$/)
    expect(cleanTitle('字'.repeat(100))).toBe(`${'字'.repeat(TITLE_MAX_CHARS - 1)}…`)
  })

  it('are empty when nothing is left', () => {
    expect(cleanTitle('```\n```')).toBe('')
    expect(cleanTitle('  "" ')).toBe('')
  })

  it('fall back to the first words of the first message', () => {
    expect(fallbackTitle('How do I **centre** a div in CSS without flexbox, please? I tried everything.')).toBe('How do I centre a div in CSS')
    expect(fallbackTitle('Hello!')).toBe('Hello')
    expect(fallbackTitle('请帮我写一封感谢信给我的老师，谢谢。')).toBe('请帮我写一封感谢信给我的老师，谢谢')
  })
})
