/// <reference types="vite/client" />
// The streaming-markdown benchmark page (tests/bench/markdown-stream.bench.ts drives it).
// ?mode=ours : the app's Markdown component, streaming, as a reply grows.
// ?mode=plain: the same text as plain text (the baseline: what any update must cost anyway).
import { useState } from 'react'
import { flushSync } from 'react-dom'
import { createRoot } from 'react-dom/client'
import '../../../src/renderer/styles/index.css'
import '../../../src/renderer/i18n'
import { Markdown } from '../../../src/renderer/features/chat/markdown/markdown'

declare global {
  interface Window {
    benchRun?: (text: string, updates: number) => Promise<{ ms: number; longTasks: number[]; updateMs: number[] }>
  }
}

const mode = new URLSearchParams(location.search).get('mode') ?? 'ours'
let setState: (s: { text: string; streaming: boolean }) => void = () => undefined

function App() {
  const [state, set] = useState({ text: '', streaming: false })
  setState = set
  return (
    <div style={{ width: 800 }}>{mode === 'ours' ? <Markdown text={state.text} streaming={state.streaming} /> : <div style={{ whiteSpace: 'pre-wrap' }}>{state.text}</div>}</div>
  )
}

createRoot(document.getElementById('root')!).render(<App />)

/** Grows the text in `updates` steps, one task per step (as store commits arrive), then ends the stream. */
window.benchRun = async (text, updates) => {
  const longTasks: number[] = []
  const observer = new PerformanceObserver((list) => list.getEntries().forEach((e) => longTasks.push(e.duration)))
  observer.observe({ type: 'longtask', buffered: false })
  const step = Math.ceil(text.length / updates)
  const started = performance.now()
  const updateMs: number[] = []
  for (let end = step; ; end += step) {
    const slice = text.slice(0, Math.min(end, text.length))
    const t0 = performance.now()
    flushSync(() => setState({ text: slice, streaming: true }))
    updateMs.push(performance.now() - t0)
    await new Promise((r) => setTimeout(r, 0))
    if (end >= text.length) break
  }
  const t0 = performance.now()
  flushSync(() => setState({ text, streaming: false }))
  updateMs.push(performance.now() - t0)
  await new Promise((r) => setTimeout(r, 50))
  const ms = performance.now() - started
  observer.disconnect()
  flushSync(() => setState({ text: '', streaming: false }))
  return { ms, longTasks, updateMs }
}
