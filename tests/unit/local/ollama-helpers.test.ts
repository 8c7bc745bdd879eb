import { describe, expect, it } from 'vitest'
import { chooseNumCtx, estimateTokens, OLLAMA_DEFAULT_NUM_CTX } from '../../../src/core/runtime/providers/ollama/ollama-num-ctx'
import { maskUrl, normaliseOllamaBaseUrl } from '../../../src/core/runtime/providers/ollama/ollama-client'
import { toOllamaError } from '../../../src/core/runtime/providers/ollama/ollama-errors'
import { normaliseServerUrl } from '../../../src/core/local/detection-service'
import { formatBytes, formatDuration, percent } from '../../../src/shared/local/format'
import { AppErrorException } from '../../../src/shared/errors/app-error'

describe('num_ctx', () => {
  it('estimates CJK at a token a character and ASCII at four characters a token', () => {
    expect(estimateTokens('abcdefgh')).toBe(2)
    expect(estimateTokens('这是一个思考过程')).toBe(8)
  })

  it('fits prompt + output, rounds to 1K, never below the default, never above the window; the override wins', () => {
    const request = (chars: number, max_tokens?: number) => ({ messages: [{ role: 'user' as const, content: 'a'.repeat(chars) }], max_tokens })
    expect(chooseNumCtx({ request: request(10) })).toBe(OLLAMA_DEFAULT_NUM_CTX)
    expect(chooseNumCtx({ request: request(40_000, 4_000) })).toBe(14 * 1024)
    expect(chooseNumCtx({ request: request(400_000), contextWindow: 32_768 })).toBe(32_768)
    expect(chooseNumCtx({ request: request(400_000), contextWindow: 32_768, override: 2048 })).toBe(2048)
    // images and tools count too
    const withImage = { messages: [{ role: 'user' as const, content: [{ type: 'image_url' as const, image_url: { url: 'data:,' } }] }] }
    expect(chooseNumCtx({ request: { ...withImage, max_tokens: 3_500 } })).toBe(5 * 1024)
  })
})

describe('base URLs', () => {
  it('accepts host:port, :port and pasted /api suffixes; rejects what does not parse (InvalidOllamaArgs)', () => {
    expect(normaliseOllamaBaseUrl(undefined)).toBe('http://127.0.0.1:11434')
    expect(normaliseOllamaBaseUrl(':11500')).toBe('http://127.0.0.1:11500')
    expect(normaliseOllamaBaseUrl('gpu-box:11434')).toBe('http://gpu-box:11434')
    expect(normaliseOllamaBaseUrl('https://ollama.example.com/api/')).toBe('https://ollama.example.com')
    expect(() => normaliseOllamaBaseUrl('http://bad host')).toThrow(AppErrorException)
    expect(() => normaliseOllamaBaseUrl('file:///etc')).toThrow(/http/)
    expect(normaliseServerUrl('127.0.0.1:1234/v1')).toBe('http://127.0.0.1:1234')
  })

  it('masks credentials in URLs shown to people', () => {
    expect(maskUrl('https://user:secret@host:1/x')).toBe('https://***@host:1/x')
  })
})

describe('Ollama error mapping', () => {
  it('fetch failed → OllamaServiceUnavailable; ResponseError → OllamaBizError with message, name, status_code', () => {
    expect(toOllamaError(new TypeError('fetch failed'))).toMatchObject({ errorType: 'OllamaServiceUnavailable', message: 'please check whether your ollama service is available', status: 472 })
    const response = Object.assign(new Error('model "x" not found, try pulling it first'), { name: 'ResponseError', status_code: 404 })
    expect(toOllamaError(response, 'x')).toMatchObject({
      errorType: 'OllamaBizError',
      status: 472,
      detail: { message: 'model "x" not found, try pulling it first', name: 'ResponseError', status_code: 404, missingModel: 'x' }
    })
    expect(toOllamaError(Object.assign(new Error('aborted'), { name: 'AbortError' }))).toMatchObject({ message: 'Request was cancelled' })
  })
})

describe('format', () => {
  it('formats sizes like Ollama (decimal), durations and floors the percentage', () => {
    expect(formatBytes(637_709_236)).toBe('637.7 MB')
    expect(formatBytes(999)).toBe('999 B')
    expect(formatDuration(75)).toBe('1m 15s')
    expect(formatDuration(4000)).toBe('1h 6m')
    expect(percent(0.99996)).toBe(99.9)
    expect(percent(1)).toBe(100)
  })
})
