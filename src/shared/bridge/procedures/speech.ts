import { z } from 'zod'
import { call } from '../define'

export interface VoiceModelChoice {
  providerId: string
  modelId: string
}

export interface VoiceSettings {
  /** Text to speech: the model and voice read-aloud uses. */
  tts?: VoiceModelChoice & { voice: string }
  /** Speech to text: the model dictation uses. */
  stt?: VoiceModelChoice
}

/** A model of type tts or stt the Voice settings can offer. */
export interface VoiceModelOption extends VoiceModelChoice {
  providerName: string
  displayName?: string
  type: 'tts' | 'stt'
  /** tts only. */
  voices?: string[]
}

export interface SpeechAudio {
  audioBase64: string
  mimeType: string
  /** Served from the per-message cache without a provider call. */
  cached: boolean
  /** How many requests the text was split into (sentence boundaries, model input limit). */
  parts: number
}

const id = z.string().min(1).max(200)

export const speechProcedures = {
  /** The chosen voice models (stored in settings as `voice`), or the first available provider's. */
  'speech.settings': call<VoiceSettings>()(z.object({}).strict()),
  /** TTS and STT models of the usable providers, with each TTS model's voices. */
  'speech.models': call<VoiceModelOption[]>()(z.object({}).strict()),
  /** Reads text aloud with the chosen (or given) TTS model; cached per message. */
  'speech.speak': call<SpeechAudio>()(
    z
      .object({
        text: z.string().min(1).max(200_000),
        messageId: id.optional(),
        providerId: id.optional(),
        modelId: id.optional(),
        voice: z.string().min(1).max(200).optional()
      })
      .strict()
  ),
  /** Turns recorded audio into text with the chosen (or given) STT model. */
  'speech.transcribe': call<{ text: string }>()(
    z
      .object({
        audioBase64: z.string().min(1).max(34_000_000),
        mimeType: z.string().min(1).max(200),
        providerId: id.optional(),
        modelId: id.optional(),
        language: z.string().min(2).max(20).optional()
      })
      .strict()
  )
} as const
