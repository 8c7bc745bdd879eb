import { useEffect } from 'react'
import { useTranslation } from 'react-i18next'
import { Mic } from 'lucide-react'
import { LevelMeter } from './level-meter'
import { useDictation } from './use-dictation'

/** The composer's microphone: click to record, click again to transcribe, Esc to cancel. */
export function DictationButton({ onText, disabled }: { onText(text: string): void; disabled?: boolean }) {
  const { t } = useTranslation()
  const dictation = useDictation(onText)
  const recording = dictation.state === 'recording'

  useEffect(() => {
    if (!recording) return
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault()
        e.stopPropagation()
        dictation.cancel()
      }
    }
    window.addEventListener('keydown', onKey, true)
    return () => window.removeEventListener('keydown', onKey, true)
  }, [recording, dictation])

  return (
    <span className="flex items-center gap-1.5">
      {recording && <LevelMeter level={dictation.level} />}
      <button
        type="button"
        onClick={() => (recording ? dictation.stop() : void dictation.start())}
        disabled={disabled || dictation.state === 'transcribing'}
        aria-pressed={recording}
        aria-label={recording ? t('voice.stopRecording') : t('voice.dictate')}
        title={recording ? t('voice.recordingHint') : t('voice.dictate')}
        data-testid="dictate"
        data-state={dictation.state}
        className={`grid size-9 place-items-center rounded-lg border text-sm disabled:opacity-40 ${
          recording ? 'animate-pulse border-red-500 bg-red-500 text-white' : 'border-zinc-300 text-zinc-600 hover:bg-zinc-100 dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800'
        }`}
      >
        {dictation.state === 'transcribing' ? (
          <span className="size-3 animate-spin rounded-full border-2 border-current border-t-transparent" />
        ) : (
          <Mic aria-hidden className="size-4" strokeWidth={1.8} />
        )}
      </button>
      {recording && <span className="sr-only" role="status">{t('voice.recording')}</span>}
      {dictation.error && (
        <span role="alert" className="max-w-48 truncate text-xs text-red-600" title={dictation.error} data-testid="dictation-error">
          {dictation.error}
        </span>
      )}
    </span>
  )
}
