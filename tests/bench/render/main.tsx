/// <reference types="vite/client" />
// The chat render benchmark page (tests/bench/render.bench.ts drives it in Chromium).
// ?mode=ours : the real chat store + virtualised MessageList + incremental Markdown.
// ?mode=naive: the same stream, re-rendering the whole reply with react-markdown per event.
// ?mode=competition / competition-naive (issue 18): `replies` replies of a Chat Competition
// streaming at once, side by side; ours through the real store and columns, naive as one
// react-markdown render per reply, each re-rendered on every event of its reply.
import { memo, useState } from 'react'
import { createRoot } from 'react-dom/client'
import ReactMarkdown from 'react-markdown'
import remarkGfm from 'remark-gfm'
import './bench.css'
import '../../../src/renderer/i18n'
import type { ChatStreamEvent } from '../../../src/shared/bridge/procedures/chat'
import type { Message } from '../../../src/shared/data/message'
import type { LiveMessage } from '../../../src/shared/chat/apply-event'
import { followStream, useChat, useVisiblePath } from '../../../src/renderer/features/chat/chat-store'
import { MessageList } from '../../../src/renderer/features/chat/message-list'
import type { MessageActions } from '../../../src/renderer/features/chat/message-view'

declare global {
  interface Window {
    benchDone?: Promise<{ events: number; ms: number }>
    benchStart?: () => void
  }
}

const params = new URLSearchParams(location.search)
const mode = params.get('mode') ?? 'ours'
const TOKENS = Number(params.get('tokens') ?? 30_000)
const HISTORY = Number(params.get('history') ?? 1_000)
const PER_TICK = Number(params.get('perTick') ?? 10)
const TICK_MS = Number(params.get('tickMs') ?? 5)
const REPLIES = Number(params.get('replies') ?? 4)
const competition = mode.startsWith('competition')

// A deterministic markdown reply cut into ~4-character tokens.
function replyTokens(count: number): string[] {
  const parts = [
    'Here is a paragraph with **bold**, _emphasis_ and `inline code` that keeps going for a while. ',
    '\n\n- a list item with [a link](https://example.com)\n- another item\n\n',
    '```ts\nfunction add(a: number, b: number) {\n  return a + b\n}\n```\n\n',
    '| a | b |\n|---|---|\n| 1 | 2 |\n\n',
    'Some math $E = mc^2$ and more prose to fill the answer. '
  ]
  let text = ''
  for (let i = 0; text.length < count * 4; i++) text += parts[i % parts.length]
  const tokens: string[] = []
  for (let i = 0; i < count; i++) tokens.push(text.slice(i * 4, i * 4 + 4))
  return tokens
}

function history(n: number): Message[] {
  const out: Message[] = []
  for (let i = 0; i < n; i++) {
    out.push({
      id: `m${i}`,
      conversationId: 'c1',
      ...(i > 0 ? { parentId: `m${i - 1}` } : {}),
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: [{ type: 'text', text: i % 2 === 0 ? `Question ${i}: how does this work?` : `Answer ${i}: it works **well**.\n\n- point one\n- point two\n\n\`\`\`js\nconsole.log(${i})\n\`\`\`` }],
      status: 'complete',
      createdAt: i,
      updatedAt: i
    })
  }
  return out
}

const noop = () => undefined
const actions: MessageActions = { copy: noop, edit: noop, regenerate: noop, deleteAndRegenerate: noop, remove: noop, continueReply: noop, switchBranch: noop }

function Ours() {
  const all = useChat((s) => s.messages['c1'] ?? [])
  const branch = useChat((s) => s.branch)
  const streaming = useChat((s) => s.streaming)
  const path = useVisiblePath(all, branch)
  return (
    <div style={{ height: '100vh', display: 'flex', flexDirection: 'column' }}>
      <MessageList path={path as LiveMessage[]} all={all as LiveMessage[]} streaming={streaming} actions={actions} onErrorAction={noop} />
    </div>
  )
}

const NaiveHistory = memo(function NaiveHistory({ messages }: { messages: Message[] }) {
  return (
    <>
      {messages.map((m) => (
        <article key={m.id} style={{ padding: 12 }}>
          <ReactMarkdown remarkPlugins={[remarkGfm]}>{m.content[0]?.type === 'text' ? m.content[0].text : ''}</ReactMarkdown>
        </article>
      ))}
    </>
  )
})

let naiveAppend: (token: string) => void = noop
function Naive({ messages }: { messages: Message[] }) {
  const [text, setText] = useState('')
  naiveAppend = (token) => setText((t) => t + token)
  return (
    <div style={{ height: '100vh', overflow: 'auto' }}>
      <NaiveHistory messages={messages} />
      <article style={{ padding: 12 }}>
        <ReactMarkdown remarkPlugins={[remarkGfm]}>{text}</ReactMarkdown>
      </article>
    </div>
  )
}

const naiveAppendTo: ((token: string) => void)[] = []
/** One naive reply of a competition: its whole text through react-markdown on each of its events. */
function NaiveColumn({ index }: { index: number }) {
  const [text, setText] = useState('')
  naiveAppendTo[index] = (token) => setText((t) => t + token)
  return (
    <article style={{ padding: 12, minWidth: 0 }}>
      <ReactMarkdown remarkPlugins={[remarkGfm]}>{text}</ReactMarkdown>
    </article>
  )
}
function NaiveCompetition({ messages }: { messages: Message[] }) {
  return (
    <div style={{ height: '100vh', overflow: 'auto' }}>
      <NaiveHistory messages={messages} />
      <div style={{ display: 'grid', gridTemplateColumns: `repeat(${REPLIES}, minmax(0, 1fr))` }}>
        {Array.from({ length: REPLIES }, (_, i) => (
          <NaiveColumn key={i} index={i} />
        ))}
      </div>
    </div>
  )
}

const tokens = replyTokens(TOKENS)
const past = history(HISTORY)
const root = createRoot(document.getElementById('root')!)
const models = Array.from({ length: REPLIES }, (_, i) => ({ providerId: 'bench', modelId: `model-${i}` }))
const question: Message = {
  id: 'question',
  conversationId: 'c1',
  parentId: `m${HISTORY - 1}`,
  role: 'user',
  content: [{ type: 'text', text: 'Which of you answers best?' }],
  meta: { competition: { models } },
  status: 'complete',
  createdAt: HISTORY,
  updatedAt: HISTORY
}

if (mode === 'ours' || mode === 'competition') {
  useChat.setState({ currentId: 'c1', messages: { c1: competition ? [...past, question] : past } })
  root.render(<Ours />)
} else if (mode === 'competition-naive') {
  root.render(<NaiveCompetition messages={[...past, question]} />)
} else {
  root.render(<Naive messages={past} />)
}

/** Delivers the tokens as separate events, PER_TICK of them every TICK_MS (a fast provider). */
function drive(emit: (token: string, i: number) => void): Promise<{ events: number; ms: number }> {
  return new Promise((resolve) => {
    const started = performance.now()
    let i = 0
    const tick = () => {
      for (let k = 0; k < PER_TICK && i < tokens.length; k++, i++) emit(tokens[i]!, i)
      if (i < tokens.length) setTimeout(tick, TICK_MS)
      else setTimeout(() => resolve({ events: i, ms: performance.now() - started }), 200)
    }
    tick()
  })
}

/** Follows one reply through the real chat store, as a bridge stream would deliver it. */
function follow(assistant: Message) {
  let handlers: { onEvents?: (events: ChatStreamEvent[], from: number) => void; onEnd?: (r: unknown) => void } = {}
  followStream((h) => {
    handlers = h as typeof handlers
    return { streamId: Promise.resolve(`bench-${assistant.id}`), detach: noop, cancel: noop }
  })
  handlers.onEvents?.([{ type: 'reply', data: { conversation: { id: 'c1', agentId: 'a', title: 'bench', pinned: false, createdAt: 0, updatedAt: 0 }, assistantMessage: assistant } }], 0)
  return handlers
}

window.benchStart = () => {
  if (mode === 'competition') {
    // Each token index reaches every reply as its own event (the replies stream in parallel).
    const replies = models.map((m, r) => {
      const assistant: Message = { id: `live-${r}`, conversationId: 'c1', parentId: 'question', role: 'assistant', ...m, content: [], status: 'streaming', createdAt: HISTORY + 1 + r, updatedAt: HISTORY + 1 + r }
      return { assistant, handlers: follow(assistant) }
    })
    window.benchDone = drive((token, i) => {
      for (const { handlers } of replies) handlers.onEvents?.([{ type: 'text', data: token }], i + 1)
    }).then((r) => {
      for (const { assistant, handlers } of replies) handlers.onEnd?.({ ok: true, value: { ...assistant, status: 'complete', content: [{ type: 'text', text: tokens.join('') }] } })
      return { ...r, events: r.events * REPLIES }
    })
  } else if (mode === 'competition-naive') {
    window.benchDone = drive((token) => naiveAppendTo.forEach((append) => append(token))).then((r) => ({ ...r, events: r.events * REPLIES }))
  } else if (mode === 'ours') {
    let handlers: { onEvents?: (events: ChatStreamEvent[], from: number) => void; onEnd?: (r: unknown) => void } = {}
    followStream((h) => {
      handlers = h as typeof handlers
      return { streamId: Promise.resolve('bench'), detach: noop, cancel: noop }
    })
    const assistant: Message = { id: 'live', conversationId: 'c1', parentId: `m${HISTORY - 1}`, role: 'assistant', content: [], status: 'streaming', createdAt: HISTORY, updatedAt: HISTORY }
    handlers.onEvents?.([{ type: 'reply', data: { conversation: { id: 'c1', agentId: 'a', title: 'bench', pinned: false, createdAt: 0, updatedAt: 0 }, assistantMessage: assistant } }], 0)
    window.benchDone = drive((token, i) => handlers.onEvents?.([{ type: 'text', data: token }], i + 1)).then((r) => {
      handlers.onEnd?.({ ok: true, value: { ...assistant, status: 'complete', content: [{ type: 'text', text: tokens.join('') }] } })
      return r
    })
  } else {
    window.benchDone = drive((token) => naiveAppend(token))
  }
}
