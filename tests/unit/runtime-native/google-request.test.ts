/* eslint-disable @typescript-eslint/no-explicit-any -- wire bodies are inspected loosely in tests */
import { describe, expect, it } from 'vitest'
import { clampThinkingBudget } from '../../../src/core/runtime/providers/google/google-thinking-budget'
import { buildGoogleConfig, loadImageWith, toGoogleContents } from '../../../src/core/runtime/providers/google/build-google-request'

describe('Gemini thinking budget', () => {
  it('2.5-pro: 128..32768 or -1', () => {
    expect(clampThinkingBudget('gemini-2.5-pro', 10)).toBe(128)
    expect(clampThinkingBudget('gemini-2.5-pro', 0)).toBe(128)
    expect(clampThinkingBudget('gemini-2.5-pro', 99999)).toBe(32768)
    expect(clampThinkingBudget('gemini-2.5-pro', -1)).toBe(-1)
  })
  it('2.5-flash-lite: 512..24576, 0 or -1', () => {
    expect(clampThinkingBudget('gemini-2.5-flash-lite', 0)).toBe(0)
    expect(clampThinkingBudget('gemini-2.5-flash-lite', 100)).toBe(512)
    expect(clampThinkingBudget('gemini-2.5-flash-lite', 30000)).toBe(24576)
    expect(clampThinkingBudget('gemini-2.5-flash-lite', -1)).toBe(-1)
  })
  it('others capped at 24576', () => {
    expect(clampThinkingBudget('gemini-2.5-flash', 30000)).toBe(24576)
    expect(clampThinkingBudget('gemini-2.5-flash', 2000)).toBe(2000)
    expect(clampThinkingBudget('gemini-2.5-flash', undefined)).toBeUndefined()
  })
  it('turns thinking off with budget 0 and leaves older models alone', () => {
    expect(buildGoogleConfig({ model: 'gemini-2.5-flash', messages: [], thinking: { type: 'disabled' } }).thinkingConfig).toEqual({ includeThoughts: false, thinkingBudget: 0 })
    expect(buildGoogleConfig({ model: 'gemini-2.0-flash', messages: [] }).thinkingConfig).toBeUndefined()
  })
  it('uses search grounding only when no function tools are given', () => {
    expect(buildGoogleConfig({ model: 'gemini-2.0-flash', messages: [], enabledSearch: true }).tools).toEqual([{ googleSearch: {} }])
  })
})

describe('Gemini contents', () => {
  it('sends tool calls back with their thought signature and tool results by function name', async () => {
    const { contents, systemInstruction } = await toGoogleContents(
      [
        { role: 'system', content: 's' },
        { role: 'user', content: [{ type: 'text', text: 'q' }, { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,AAA' } }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' }, thoughtSignature: 'sig' }] },
        { role: 'tool', tool_call_id: 'c1', content: 'r' }
      ],
      loadImageWith(async () => {
        throw new Error('data URLs need no fetch')
      })
    )
    expect(systemInstruction).toBe('s')
    expect(contents).toEqual([
      { role: 'user', parts: [{ text: 'q' }, { inlineData: { mimeType: 'image/jpeg', data: 'AAA' } }] },
      { role: 'model', parts: [{ functionCall: { name: 'f', args: { a: 1 } }, thoughtSignature: 'sig' }] },
      { role: 'user', parts: [{ functionResponse: { name: 'f', response: { result: 'r' } } }] }
    ] as any)
  })
})

describe('Gemini image-output models', () => {
  it('ask for TEXT and IMAGE and get no thinking config', () => {
    const config = buildGoogleConfig({ model: 'gemini-2.5-flash-image-preview', messages: [] })
    expect(config.responseModalities).toEqual(['TEXT', 'IMAGE'])
    expect(config.thinkingConfig).toBeUndefined()
    expect(buildGoogleConfig({ model: 'gemini-2.5-flash', messages: [] }).responseModalities).toBeUndefined()
  })
})
