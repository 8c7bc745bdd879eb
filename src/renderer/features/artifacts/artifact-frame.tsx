import { useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { FromRuntime, ToRuntime, ArtifactRuntimeType } from '../../artifact-runtime/protocol'
import { artifactSandboxUrl, heartbeatVerdict, newLoadNonce, PING_EVERY_MS, type HeartbeatState } from './heartbeat'

/**
 * Runs one artifact in the sandboxed runtime page: `sandbox="allow-scripts"` without
 * `allow-same-origin` (an opaque origin: no cookie, no storage, no bridge of the app), on the
 * runtime's no-network policy. Chromium gives a sandboxed frame a process of its own, so a loop
 * in it leaves the app running; the heartbeat notices and this component drops the frame, which
 * ends that process. Whatever the frame posts is untrusted: only error text is kept, as text.
 */
export function ArtifactFrame({
  type,
  content,
  title,
  network,
  onError
}: {
  type: ArtifactRuntimeType
  content: string
  title: string
  network: boolean
  onError(message: string): void
}) {
  const { t } = useTranslation()
  const ref = useRef<HTMLIFrameElement>(null)
  const [hung, setHung] = useState(false)
  /** The frame said `ready` a second time: it navigated itself (to another policy, say) and was stopped. */
  const [reloaded, setReloaded] = useState(false)
  const [run, setRun] = useState(0)
  // One nonce per load of the frame; the artifact's code goes to that load once, never to a page
  // the frame loaded by itself afterwards (which could carry another network policy).
  // A page the artifact loads by itself (same nonce, another policy) is told apart by its second `ready`.
  const [nonce] = useState(newLoadNonce)
  const load = `${nonce}-${run}-${network ? 1 : 0}`
  const rendered = useRef<string | undefined>(undefined)
  const onErrorRef = useRef(onError)
  onErrorRef.current = onError

  useEffect(() => {
    setHung(false)
    setReloaded(false)
  }, [type, content, network])

  useEffect(() => {
    if (hung) return
    const frame = ref.current
    if (!frame) return
    const state: HeartbeatState = { startedAt: Date.now(), ready: false }
    let n = 0
    const post = (message: ToRuntime) => frame.contentWindow?.postMessage(message, '*')
    const onMessage = (event: MessageEvent<FromRuntime>) => {
      if (event.source !== frame.contentWindow || !event.data || typeof event.data !== 'object') return
      const data = event.data
      if (data.type === 'ready') {
        if (data.load !== load) return
        if (rendered.current === load || data.net !== network) {
          setReloaded(true)
          return
        }
        rendered.current = load
        state.ready = true
        state.waitingSince = undefined
        post({ type: 'render', artifactType: type, content, title })
      } else if (data.type === 'pong') state.waitingSince = undefined
      else if (data.type === 'error' && typeof data.message === 'string') onErrorRef.current(data.message.slice(0, 8000))
    }
    window.addEventListener('message', onMessage)
    const timer = setInterval(() => {
      if (heartbeatVerdict(state, Date.now()) === 'hung') {
        setHung(true)
        return
      }
      if (state.ready) {
        state.waitingSince ??= Date.now()
        post({ type: 'ping', n: ++n })
      }
    }, PING_EVERY_MS)
    return () => {
      clearInterval(timer)
      window.removeEventListener('message', onMessage)
    }
  }, [type, content, title, network, run, hung, load])

  if (reloaded) {
    return (
      <div className="grid h-full place-items-center p-6 text-center" data-testid="artifact-reloaded">
        <div className="space-y-3">
          <p className="text-sm font-medium text-amber-700 dark:text-amber-400">{t('artifacts.reloaded')}</p>
          <p className="text-xs text-zinc-500">{t('artifacts.reloadedHint')}</p>
          <button
            className="rounded-md border border-zinc-300 px-3 py-1 text-sm hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
            onClick={() => {
              setRun((r) => r + 1)
              setReloaded(false)
            }}
            data-testid="artifact-restart"
          >
            {t('artifacts.restart')}
          </button>
        </div>
      </div>
    )
  }

  if (hung) {
    return (
      <div className="grid h-full place-items-center p-6 text-center" data-testid="artifact-stopped">
        <div className="space-y-3">
          <p className="text-sm font-medium text-amber-700 dark:text-amber-400">{t('artifacts.stopped')}</p>
          <p className="text-xs text-zinc-500">{t('artifacts.stoppedHint')}</p>
          <button
            className="rounded-md border border-zinc-300 px-3 py-1 text-sm hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
            onClick={() => {
              setRun((r) => r + 1)
              setHung(false)
            }}
            data-testid="artifact-restart"
          >
            {t('artifacts.restart')}
          </button>
        </div>
      </div>
    )
  }
  return (
    <iframe
      key={`${run}:${network ? 1 : 0}`}
      ref={ref}
      title={title}
      src={artifactSandboxUrl(location.origin, network, load)}
      sandbox="allow-scripts"
      referrerPolicy="no-referrer"
      allow=""
      className="h-full w-full border-0 bg-white"
      data-testid="artifact-frame"
    />
  )
}
