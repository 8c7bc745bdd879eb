import { useCallback, useEffect, useRef, useState } from 'react'
import { bridge } from '../../stores/app-store'
import { blobToBase64 } from './audio-data'

export type DictationState = 'idle' | 'recording' | 'transcribing'

const MIME_TYPES = ['audio/webm;codecs=opus', 'audio/webm', 'audio/ogg;codecs=opus', 'audio/mp4']

/**
 * Records the microphone with MediaRecorder, measures its level with an AnalyserNode for the
 * meter, and on stop sends the recording through the bridge to the chosen STT model.
 * `cancel` (Esc) drops the recording without a request.
 */
export function useDictation(onText: (text: string) => void) {
  const [state, setState] = useState<DictationState>('idle')
  const [level, setLevel] = useState(0)
  const [error, setError] = useState<string>()
  const session = useRef<{ recorder: MediaRecorder; stream: MediaStream; context: AudioContext; frame: number; cancelled: boolean }>(undefined)

  const release = () => {
    const s = session.current
    if (!s) return
    cancelAnimationFrame(s.frame)
    for (const track of s.stream.getTracks()) track.stop()
    void s.context.close()
    session.current = undefined
    setLevel(0)
  }

  // Leaving the page mid-recording drops it and frees the microphone.
  useEffect(
    () => () => {
      const s = session.current
      if (!s) return
      s.cancelled = true
      if (s.recorder.state === 'recording') s.recorder.stop()
      release()
    },
    []
  )

  const start = useCallback(async () => {
    setError(undefined)
    let stream: MediaStream
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true })
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e))
      return
    }
    const mimeType = MIME_TYPES.find((m) => MediaRecorder.isTypeSupported(m))
    const recorder = new MediaRecorder(stream, mimeType ? { mimeType } : undefined)
    const context = new AudioContext()
    const analyser = context.createAnalyser()
    analyser.fftSize = 512
    context.createMediaStreamSource(stream).connect(analyser)
    const samples = new Uint8Array(analyser.fftSize)
    const chunks: Blob[] = []
    const s = { recorder, stream, context, frame: 0, cancelled: false }
    session.current = s
    const measure = () => {
      analyser.getByteTimeDomainData(samples)
      let sum = 0
      for (const v of samples) sum += ((v - 128) / 128) ** 2
      // RMS of speech sits around 0.05–0.3: scale so normal speech fills most of the meter.
      setLevel(Math.min(1, Math.sqrt(sum / samples.length) * 4))
      s.frame = requestAnimationFrame(measure)
    }
    measure()
    recorder.ondataavailable = (e) => e.data.size > 0 && chunks.push(e.data)
    recorder.onstop = async () => {
      release()
      if (s.cancelled) {
        setState('idle')
        return
      }
      setState('transcribing')
      const blob = new Blob(chunks, { type: recorder.mimeType || 'audio/webm' })
      const result = await bridge().call('speech.transcribe', { audioBase64: await blobToBase64(blob), mimeType: blob.type || 'audio/webm' })
      setState('idle')
      if (result.ok) {
        if (result.value.text) onText(result.value.text)
      } else setError(result.error.message)
    }
    recorder.start(250)
    setState('recording')
  }, [onText])

  const stop = useCallback(() => {
    if (session.current?.recorder.state === 'recording') session.current.recorder.stop()
  }, [])

  const cancel = useCallback(() => {
    const s = session.current
    if (!s) return
    s.cancelled = true
    if (s.recorder.state === 'recording') s.recorder.stop()
    else release()
  }, [])

  return { state, level, error, start, stop, cancel }
}
