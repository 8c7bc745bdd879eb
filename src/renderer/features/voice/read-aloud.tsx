import { useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { bridge } from '../../stores/app-store'
import { base64ToBlob } from './audio-data'

type PlayState = 'idle' | 'loading' | 'playing' | 'paused'

/** Only one message speaks at a time: starting another stops this one. */
let speaking: { stop(): void } | undefined

export interface ReadAloudProps {
  messageId: string
  text: string
  /** Class of the message action buttons, so these look the same. */
  buttonClass: string
  /**
   * Where a failure is shown: the message draws it below its toolbar, which is hidden
   * until hover, so an error inside it would go unseen. Undefined clears it.
   */
  onError?(message: string | undefined): void
}

/**
 * Read aloud with play / pause / stop. The core speaks the text with the chosen TTS model
 * (split within the model's input limit) and caches the audio per message, so a replay is free.
 */
export function ReadAloud({ messageId, text, buttonClass, onError }: ReadAloudProps) {
  const { t } = useTranslation()
  const [state, setState] = useState<PlayState>('idle')
  const [src, setSrc] = useState<string>()
  const [ownError, setOwnError] = useState<string>()
  const setError = (message: string | undefined) => (onError ? onError(message) : setOwnError(message))
  const audio = useRef<HTMLAudioElement>(null)
  const self = useRef({ stop: () => undefined as void })

  useEffect(() => () => void (src && URL.revokeObjectURL(src)), [src])
  useEffect(() => () => (speaking === self.current ? (speaking = undefined) : undefined), [])

  const stop = () => {
    const el = audio.current
    if (el) {
      el.pause()
      el.currentTime = 0
    }
    setState('idle')
  }
  self.current.stop = stop

  const start = async (el: HTMLAudioElement) => {
    if (speaking && speaking !== self.current) speaking.stop()
    speaking = self.current
    try {
      await el.play()
      setState('playing')
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e))
      setState('idle')
    }
  }

  const play = async () => {
    setError(undefined)
    if (src && audio.current) return start(audio.current)
    setState('loading')
    const result = await bridge().call('speech.speak', { text, messageId })
    if (!result.ok) {
      setError(result.error.message)
      setState('idle')
      return
    }
    setSrc(URL.createObjectURL(base64ToBlob(result.value.audioBase64, result.value.mimeType)))
    // The element gets its source on the next render; playback starts in onCanPlay.
  }

  return (
    <span className="inline-flex items-center gap-1" data-testid="read-aloud" data-state={state}>
      {state === 'playing' ? (
        <button className={buttonClass} onClick={() => audio.current?.pause()} data-testid="read-aloud-pause">
          {t('voice.pause')}
        </button>
      ) : (
        <button className={buttonClass} onClick={() => void play()} disabled={state === 'loading'} data-testid="read-aloud-play">
          {state === 'loading' ? t('voice.preparing') : state === 'paused' ? t('voice.resume') : t('voice.readAloud')}
        </button>
      )}
      {(state === 'playing' || state === 'paused') && (
        <button className={buttonClass} onClick={stop} data-testid="read-aloud-stop">
          {t('voice.stop')}
        </button>
      )}
      {src && (
        // eslint-disable-next-line jsx-a11y/media-has-caption -- speech of the message shown right above it: the text is the caption
        <audio
          ref={audio}
          src={src}
          data-testid="read-aloud-audio"
          onCanPlay={(e) => state === 'loading' && void start(e.currentTarget)}
          onPause={() => setState((s) => (s === 'playing' ? 'paused' : s))}
          onPlay={() => setState('playing')}
          onEnded={(e) => {
            e.currentTarget.currentTime = 0
            setState('idle')
          }}
          className="hidden"
        />
      )}
      {ownError && (
        <span role="alert" className="text-red-600" data-testid="read-aloud-error">
          {ownError}
        </span>
      )}
    </span>
  )
}
