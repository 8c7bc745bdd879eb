import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { PickerModel, ProviderSummary } from '../../shared/bridge/procedures/providers'
import type { SpeechAudio, VoiceModelOption, VoiceSettings } from '../../shared/bridge/procedures/speech'
import { AppErrorException, type AppError } from '../../shared/errors/app-error'
import { countTokens } from '../../shared/tokens/count-tokens'
import type { UsageRecord } from '../../shared/stream/usage'
import type { CallOptions, SpeechToTextResult } from '../runtime/types'
import type { ModelCaller } from '../caller/model-caller'
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../files/private-files'
import { logger } from '../log/logger'

// ---------------------------------------------------------------- model facts

/** Input limit of a TTS model per request (product.md §9: the mini TTS model takes 2,000 tokens). */
export interface SpeechInputLimit {
  maxTokens?: number
  maxChars?: number
}

const TTS_LIMITS: Record<string, SpeechInputLimit> = {
  'gpt-4o-mini-tts': { maxTokens: 2000 },
  // OpenAI documents 4,096 characters for the tts-1 family.
  'tts-1': { maxChars: 4096 },
  'tts-1-hd': { maxChars: 4096 }
}
/** Unknown models: small enough for every OpenAI-style speech endpoint we know. */
const DEFAULT_TTS_LIMIT: SpeechInputLimit = { maxChars: 2000 }

export const ttsInputLimit = (modelId: string): SpeechInputLimit => TTS_LIMITS[modelId.split('/').pop() ?? modelId] ?? DEFAULT_TTS_LIMIT

const OPENAI_VOICES = ['alloy', 'ash', 'coral', 'echo', 'fable', 'onyx', 'nova', 'sage', 'shimmer']
const COSYVOICE_VOICES = ['alex', 'anna', 'bella', 'benjamin', 'charles', 'claire', 'david', 'diana']

/** The voices a TTS model speaks with; the first is the default. */
export function voicesFor(providerId: string, modelId: string): string[] {
  if (modelId === 'gpt-4o-mini-tts') return [...OPENAI_VOICES, 'ballad', 'verse']
  // SiliconCloud's CosyVoice takes the voice qualified by the model id.
  if (/cosyvoice/i.test(modelId)) return COSYVOICE_VOICES.map((v) => `${modelId}:${v}`)
  if (providerId === 'stepfun') return ['cixingnansheng', 'zhengpaiqingnian', 'yuanqinvsheng', 'qingchunshaonv', 'wenrounansheng']
  return OPENAI_VOICES
}

// ---------------------------------------------------------------- text preparation

/** Markdown as it should sound: code blocks, image and link targets and markup are not read out. */
export function speakableText(markdown: string): string {
  return markdown
    .replace(/```[\s\S]*?(```|$)/g, ' ')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/<\/?[a-z][^>]*>/gi, ' ')
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+\.)\s+/gm, '')
    .replace(/(\*\*|__|\*|_|~~|`)(?=\S)([^\n]*?\S)\1/g, '$2')
    .replace(/[ \t]+/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
}

const fits = (text: string, limit: SpeechInputLimit) =>
  (limit.maxChars === undefined || text.length <= limit.maxChars) && (limit.maxTokens === undefined || countTokens(text) <= limit.maxTokens)

/** A sentence longer than one request: cut at spaces, or anywhere for scripts without them. */
function splitLong(sentence: string, limit: SpeechInputLimit): string[] {
  const out: string[] = []
  let rest = sentence.trim()
  while (rest && !fits(rest, limit)) {
    let end = Math.min(rest.length, limit.maxChars ?? rest.length)
    while (end > 1 && !fits(rest.slice(0, end), limit)) end = Math.floor(end * 0.9)
    const space = rest.lastIndexOf(' ', end)
    const cut = space > end * 0.5 ? space : end
    out.push(rest.slice(0, cut).trim())
    rest = rest.slice(cut).trim()
  }
  if (rest) out.push(rest)
  return out
}

/**
 * Splits text into requests at sentence boundaries, each within the model's input limit;
 * sentences are packed greedily so a short answer is one request.
 */
export function splitForSpeech(text: string, limit: SpeechInputLimit): string[] {
  const segmenter = new Intl.Segmenter(undefined, { granularity: 'sentence' })
  const chunks: string[] = []
  let current = ''
  for (const { segment } of segmenter.segment(text)) {
    if (!segment.trim()) continue
    const joined = current + segment
    if (fits(joined.trim(), limit)) {
      current = joined
      continue
    }
    if (current.trim()) chunks.push(current.trim())
    current = ''
    if (fits(segment.trim(), limit)) current = segment
    else chunks.push(...splitLong(segment, limit))
  }
  if (current.trim()) chunks.push(current.trim())
  return chunks
}

// ---------------------------------------------------------------- the service

const speechFailed = (providerId: string, cause: unknown): AppErrorException => {
  const inner: AppError | undefined = cause instanceof AppErrorException ? cause.error : undefined
  const detail = inner?.message ?? (cause instanceof Error ? cause.message : String(cause))
  return new AppErrorException({
    errorType: 'SpeechServiceError',
    status: inner?.status ?? 502,
    provider: providerId,
    message: `Speech-to-text and text-to-speech service request failed: ${detail}`,
    ...(inner ? { detail: { cause: inner.errorType } } : {})
  })
}

/** The type of cached audio from its first bytes (we ask for MP3, but some servers answer WAV or Ogg). */
function sniffAudioType(bytes: Uint8Array): string {
  const head = Buffer.from(bytes.subarray(0, 4)).toString('latin1')
  if (head === 'RIFF') return 'audio/wav'
  if (head === 'OggS') return 'audio/ogg'
  if (head === 'fLaC') return 'audio/flac'
  return 'audio/mpeg'
}

/** OpenAI's transcription upload limit (about 25 minutes of Opus dictation). */
const MAX_TRANSCRIPTION_BYTES = 25 * 1024 * 1024

const AUDIO_EXTENSIONS: Record<string, string> = { 'audio/webm': 'webm', 'audio/ogg': 'ogg', 'audio/mp4': 'm4a', 'audio/mpeg': 'mp3', 'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/flac': 'flac' }

export interface SpeechServiceDeps {
  /** The one caller: each read-aloud and each dictation is priced and logged (scenes Read Aloud, Dictation). */
  caller: Pick<ModelCaller, 'call'>
  providers(): Promise<ProviderSummary[]>
  models(providerId: string): Promise<PickerModel[]>
  /** The stored choice (settings key `voice`). */
  storedSettings(): VoiceSettings | undefined
  dataDir: string
}

/**
 * Read aloud and dictation. Speech is cached per message and per (model, voice, text) in
 * `<dataDir>/speech/`, so replaying a message costs nothing and an edited one is spoken anew.
 */
export class SpeechService {
  constructor(private readonly deps: SpeechServiceDeps) {}

  /** TTS and STT models of the usable providers. */
  async models(): Promise<VoiceModelOption[]> {
    const out: VoiceModelOption[] = []
    for (const provider of await this.deps.providers()) {
      if (!provider.available) continue
      const models = await this.deps.models(provider.id).catch(() => [])
      for (const m of models) {
        if (m.type !== 'tts' && m.type !== 'stt') continue
        out.push({
          providerId: provider.id,
          providerName: provider.name,
          modelId: m.id,
          ...(m.displayName ? { displayName: m.displayName } : {}),
          type: m.type,
          ...(m.type === 'tts' ? { voices: voicesFor(provider.id, m.id) } : {})
        })
      }
    }
    return out
  }

  /** The user's choice, completed with the first available provider's models. */
  async settings(): Promise<VoiceSettings> {
    const stored = this.deps.storedSettings() ?? {}
    if (stored.tts && stored.stt) return stored
    const options = await this.models()
    const tts = options.find((o) => o.type === 'tts')
    const stt = options.find((o) => o.type === 'stt')
    return {
      ...(stored.tts ? { tts: stored.tts } : tts ? { tts: { providerId: tts.providerId, modelId: tts.modelId, voice: tts.voices?.[0] ?? 'alloy' } } : {}),
      ...(stored.stt ? { stt: stored.stt } : stt ? { stt: { providerId: stt.providerId, modelId: stt.modelId } } : {})
    }
  }

  private noModel(kind: 'text-to-speech' | 'speech-to-text'): AppErrorException {
    return new AppErrorException({
      errorType: 'SpeechServiceError',
      status: 400,
      message: `Speech-to-text and text-to-speech service request failed: no ${kind} model is available. Add a provider key with one (for example OpenAI) in Settings, then choose it under Voice.`
    })
  }

  async speak(
    input: { text: string; messageId?: string; providerId?: string; modelId?: string; voice?: string },
    options?: CallOptions
  ): Promise<SpeechAudio> {
    const chosen = input.providerId && input.modelId ? undefined : (await this.settings()).tts
    const providerId = input.providerId ?? chosen?.providerId
    const modelId = input.modelId ?? chosen?.modelId
    if (!providerId || !modelId) throw this.noModel('text-to-speech')
    const voice = input.voice ?? (chosen?.modelId === modelId ? chosen.voice : undefined) ?? voicesFor(providerId, modelId)[0] ?? 'alloy'
    const text = speakableText(input.text)
    if (!text) throw new AppErrorException({ errorType: 'SpeechServiceError', status: 400, message: 'Speech-to-text and text-to-speech service request failed: this message has nothing to read aloud.' })
    const parts = splitForSpeech(text, ttsInputLimit(modelId))
    const cacheFile = input.messageId ? this.cachePath(input.messageId, [providerId, modelId, voice, text]) : undefined
    if (cacheFile) {
      try {
        const cached = readFileSync(cacheFile)
        return { audioBase64: cached.toString('base64'), mimeType: sniffAudioType(cached), cached: true, parts: parts.length }
      } catch {
        // Not cached yet.
      }
    }
    const audio: Uint8Array[] = []
    let mimeType = 'audio/mpeg'
    const { signal, ...call } = options ?? {}
    try {
      // One call for the whole message (one usage line), its parts in order: MP3 frames concatenate into one playable stream.
      await this.deps.caller.call({
        kind: 'speech',
        scene: 'Read Aloud',
        target: { providerId, modelId },
        ...(input.messageId ? { messageId: input.messageId } : {}),
        ...(signal ? { signal } : {}),
        call,
        invoke: async ({ runtime, options: callOptions }) => {
          const provider = await runtime()
          if (!provider.textToSpeech) throw new Error(`${providerId} does not offer text-to-speech`)
          for (const part of parts) {
            const result = await provider.textToSpeech({ model: modelId, input: part, voice, responseFormat: 'mp3' }, callOptions)
            audio.push(result.audio)
            mimeType = result.mimeType || mimeType
          }
        },
        // Speech endpoints answer audio, not usage: what was sent is measured here, in the units the catalogue prices by.
        measure: () => {
          const tokens = parts.reduce((n, part) => n + countTokens(part), 0)
          return { inputCharacters: parts.reduce((n, part) => n + part.length, 0), inputTextTokens: tokens, totalInputTokens: tokens, totalTokens: tokens }
        }
      })
    } catch (error) {
      throw speechFailed(providerId, error)
    }
    const bytes = Buffer.concat(audio)
    if (cacheFile) {
      try {
        mkdirSync(join(this.deps.dataDir, 'speech'), { recursive: true, mode: PRIVATE_DIR_MODE })
        writeFileSync(cacheFile, bytes, { mode: PRIVATE_FILE_MODE })
      } catch (error) {
        // A full disk loses the cache, not the audio.
        logger.warn('speech', 'writing the speech cache failed', error)
      }
    }
    return { audioBase64: bytes.toString('base64'), mimeType, cached: false, parts: parts.length }
  }

  async transcribe(
    input: { audioBase64: string; mimeType: string; providerId?: string; modelId?: string; language?: string },
    options?: CallOptions
  ): Promise<{ text: string }> {
    const chosen = input.providerId && input.modelId ? undefined : (await this.settings()).stt
    const providerId = input.providerId ?? chosen?.providerId
    const modelId = input.modelId ?? chosen?.modelId
    if (!providerId || !modelId) throw this.noModel('speech-to-text')
    const audio = Buffer.from(input.audioBase64, 'base64')
    if (audio.length === 0) throw new AppErrorException({ errorType: 'SpeechServiceError', status: 400, message: 'Speech-to-text and text-to-speech service request failed: the recording is empty.' })
    if (audio.length > MAX_TRANSCRIPTION_BYTES)
      throw new AppErrorException({
        errorType: 'SpeechServiceError',
        status: 413,
        message: `Speech-to-text and text-to-speech service request failed: the recording is ${(audio.length / 1048576).toFixed(1)} MB; speech-to-text takes at most 25 MB.`
      })
    const baseType = input.mimeType.split(';')[0]?.trim().toLowerCase() ?? ''
    const { signal, ...call } = options ?? {}
    try {
      const { result } = await this.deps.caller.call<SpeechToTextResult>({
        kind: 'transcription',
        scene: 'Dictation',
        target: { providerId, modelId },
        ...(signal ? { signal } : {}),
        call,
        invoke: async ({ runtime, options: callOptions }) => {
          const provider = await runtime()
          if (!provider.speechToText) throw new Error(`${providerId} does not offer speech-to-text`)
          return provider.speechToText(
            {
              model: modelId,
              audio: new Uint8Array(audio),
              fileName: `dictation.${AUDIO_EXTENSIONS[baseType] ?? 'webm'}`,
              mimeType: baseType || 'audio/webm',
              ...(input.language ? { language: input.language } : {})
            },
            callOptions
          )
        },
        measure: (result) => transcriptionUsage(result.usage)
      })
      return { text: result.text.trim() }
    } catch (error) {
      throw speechFailed(providerId, error)
    }
  }

  private cachePath(messageId: string, key: string[]): string {
    const hash = createHash('sha256').update(key.join('\u0000')).digest('hex').slice(0, 24)
    return join(this.deps.dataDir, 'speech', `${messageId.replace(/[^A-Za-z0-9_-]/g, '_')}-${hash}.mp3`)
  }
}

/** A transcription's usage as the pricing reads it: seconds of audio, or audio and text tokens in and text out. */
function transcriptionUsage(usage: SpeechToTextResult['usage']): UsageRecord | undefined {
  if (!usage) return undefined
  const audio = usage.audioTokens ?? (usage.textTokens === undefined ? usage.inputTokens : undefined)
  return {
    ...(usage.seconds !== undefined ? { inputAudioSeconds: usage.seconds } : {}),
    ...(audio !== undefined ? { inputAudioTokens: audio } : {}),
    ...(usage.textTokens !== undefined ? { inputTextTokens: usage.textTokens } : {}),
    ...(usage.inputTokens !== undefined ? { totalInputTokens: usage.inputTokens } : {}),
    ...(usage.outputTokens !== undefined ? { outputTextTokens: usage.outputTokens, totalOutputTokens: usage.outputTokens } : {}),
    ...(usage.inputTokens !== undefined || usage.outputTokens !== undefined ? { totalTokens: (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0) } : {})
  }
}
