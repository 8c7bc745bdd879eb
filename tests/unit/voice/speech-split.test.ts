import { describe, expect, it } from 'vitest'
import { countTokens } from '../../../src/core/files'
import { speakableText, splitForSpeech, ttsInputLimit, voicesFor } from '../../../src/core/speech/speech-service'

describe('splitForSpeech', () => {
  it('keeps a short text in one request', () => {
    expect(splitForSpeech('Hello there. How are you?', { maxTokens: 2000 })).toEqual(['Hello there. How are you?'])
  })

  it('splits long text at sentence boundaries within the mini model limit (2,000 tokens)', () => {
    const sentences = Array.from({ length: 400 }, (_, i) => `Sentence number ${i} talks about something rather ordinary.`)
    const text = sentences.join(' ')
    const limit = ttsInputLimit('gpt-4o-mini-tts')
    expect(limit).toEqual({ maxTokens: 2000 })
    const parts = splitForSpeech(text, limit)
    expect(parts.length).toBeGreaterThan(1)
    for (const part of parts) {
      expect(countTokens(part)).toBeLessThanOrEqual(2000)
      expect(part.endsWith('.')).toBe(true) // never mid-sentence
    }
    expect(parts.join(' ')).toBe(text) // nothing lost, nothing repeated
  })

  it('cuts a single sentence longer than the limit at spaces, and CJK text without spaces anywhere', () => {
    const long = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ')
    const parts = splitForSpeech(long, { maxChars: 500 })
    expect(parts.every((p) => p.length <= 500)).toBe(true)
    expect(parts.join(' ')).toBe(long)
    const cjk = '很'.repeat(5000)
    const cjkParts = splitForSpeech(cjk, { maxTokens: 2000 })
    expect(cjkParts.every((p) => countTokens(p) <= 2000)).toBe(true)
    expect(cjkParts.join('')).toBe(cjk)
  })

  it('uses the 4,096-character limit for tts-1 and a conservative one for unknown models', () => {
    expect(ttsInputLimit('tts-1')).toEqual({ maxChars: 4096 })
    expect(ttsInputLimit('some-new-tts').maxChars).toBeLessThanOrEqual(4096)
  })
})

describe('speakableText', () => {
  it('drops code blocks, link targets and markup', () => {
    const md = '# Title\n\nSee **this** [page](https://x.test/a) and `code`.\n\n```ts\nconst secret = 1\n```\n- item one\n![pic](https://x.test/p.png)'
    const spoken = speakableText(md)
    expect(spoken).toContain('Title')
    expect(spoken).toContain('See this page and code.')
    expect(spoken).toContain('item one')
    expect(spoken).not.toMatch(/https|const secret|\*\*|#|```/)
  })
})

describe('voicesFor', () => {
  it('offers the extra voices of the mini TTS model and model-qualified CosyVoice voices', () => {
    expect(voicesFor('openai', 'gpt-4o-mini-tts')).toContain('verse')
    expect(voicesFor('openai', 'tts-1')).not.toContain('verse')
    expect(voicesFor('siliconcloud', 'FunAudioLLM/CosyVoice2-0.5B')[0]).toBe('FunAudioLLM/CosyVoice2-0.5B:alex')
  })
})
