import type { ArtifactRuntimeType, FromRuntime, ToRuntime } from './protocol'

/**
 * The artifact runtime: a page of its own served from `/artifact-sandbox/` with a policy that
 * allows no network, framed by the app with `sandbox="allow-scripts"` (an opaque origin). It
 * answers the app's heartbeat while its thread is free (an artifact stuck in a loop stops
 * answering and the app discards the frame), renders what the app sends, and reports errors.
 * Opened as a page of its own ("open in a new tab") it reads the artifact from the fragment.
 */

const embedded = window.parent !== window
const send = (message: FromRuntime) => {
  if (embedded) window.parent.postMessage(message, '*')
}

let reported = 0
const reportError = (message: string) => {
  // An artifact that throws in a loop must not flood the app.
  if (++reported > 20) return
  send({ type: 'error', message: message.slice(0, 8000) })
}

window.addEventListener('error', (event) => reportError(event.error instanceof Error ? `${event.error.name}: ${event.error.message}` : String(event.message)))
window.addEventListener('unhandledrejection', (event) => reportError(event.reason instanceof Error ? `${event.reason.name}: ${event.reason.message}` : String(event.reason)))

let rendered = false
async function render(type: ArtifactRuntimeType, content: string, title: string) {
  if (rendered) return
  rendered = true
  document.title = title
  try {
    if (type === 'html' || type === 'svg') {
      const { renderHtml } = await import('./html-runner')
      renderHtml(type === 'svg' ? `<!doctype html><html><head><style>body{margin:0;display:grid;place-items:center;min-height:100vh}svg{max-width:100%;height:auto}</style></head><body>${content}</body></html>` : content)
    } else if (type === 'react') {
      const { renderReact } = await import('./react-runner')
      renderReact(content, reportError)
    } else {
      const { runPython } = await import('./python-runner')
      await runPython(content, reportError)
    }
    send({ type: 'rendered' })
  } catch (error) {
    reportError(error instanceof Error ? `${error.name}: ${error.message}` : String(error))
  }
}

window.addEventListener('message', (event: MessageEvent<ToRuntime>) => {
  if (!embedded || event.source !== window.parent) return
  const data = event.data
  if (!data || typeof data !== 'object') return
  if (data.type === 'ping') send({ type: 'pong', n: data.n })
  else if (data.type === 'render' && typeof data.content === 'string') void render(data.artifactType, data.content, String(data.title ?? ''))
})

const params = new URLSearchParams(location.search)
const network = params.get('net') === '1'
if (embedded) send({ type: 'ready', load: params.get('load'), net: network })
else if (network) {
  // Opened as a page of its own, nothing but this address says what it may do, and an artifact
  // can navigate its own page to any address: a page of its own never runs with the network.
  document.body.textContent = 'Artifacts with network access run inside Switchboard only.'
} else if (location.hash.length > 1) {
  try {
    const bytes = Uint8Array.from(atob(decodeURIComponent(location.hash.slice(1))), (c) => c.charCodeAt(0))
    const payload = JSON.parse(new TextDecoder().decode(bytes)) as { artifactType: ArtifactRuntimeType; content: string; title: string }
    history.replaceState(null, '', location.pathname)
    void render(payload.artifactType, payload.content, payload.title)
  } catch {
    document.body.textContent = 'This artifact link is damaged.'
  }
}
