import { useVirtualizer } from '@tanstack/react-virtual'
import { lazy, Suspense, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { ArrowDown } from 'lucide-react'
import type { LiveMessage } from '../../../shared/chat/apply-event'
import type { MessageActions } from './message-view'
import { JoinedMessageView } from './joined-message-view'
import { joinContinuations } from './joined-reply'
import { MessageBoundary } from './message-boundary'
import { branchPositions, isContinuation, messageSetKey } from './branches'
import { chatActions, useChat } from './chat-store'

/** The reply at `index` answers a competition the user has not decided yet. */
const competing = (path: readonly LiveMessage[], index: number): boolean => {
  const parent = index > 0 ? path[index - 1] : undefined
  return path[index]!.role === 'assistant' && Boolean(parent?.meta?.competition && !parent.meta.competition.chosenId)
}
import { followLatest } from './follow-latest'

// A competition's side-by-side turn is rare in a conversation: its code loads when one is shown.
const CompetitionTurn = lazy(() => import('./competition/competition-turn').then((m) => ({ default: m.CompetitionTurn })))

/**
 * The rows the list draws: the path, less the messages that go on from an undecided competition's
 * reply (its continuation, its tool steps), which its column draws instead.
 */
function listRows(path: LiveMessage[]): LiveMessage[] {
  const rows: LiveMessage[] = []
  let inCompetition = false
  path.forEach((message, index) => {
    if (competing(path, index)) inCompetition = true
    else if (inCompetition && message.role === 'assistant') return
    else inCompetition = false
    rows.push(message)
  })
  return rows
}

/** Closer to the bottom than this counts as "at the bottom" (following the reply). */
const AT_BOTTOM_PX = 80

/**
 * The conversation, virtualised: only the messages near the viewport are in the DOM, so a
 * conversation of thousands of messages scrolls and streams smoothly. While the reader is at
 * the bottom, new text keeps the view pinned there; scrolling up stops the pinning and shows
 * "Jump to latest"; sending (followLatest) or scrolling back down pins it again.
 */
export function MessageList({
  path: fullPath,
  all,
  streaming,
  actions,
  onErrorAction
}: {
  path: LiveMessage[]
  all: LiveMessage[]
  streaming: Record<string, true>
  actions: MessageActions
  onErrorAction(message: LiveMessage, fix?: 'trim'): void
}) {
  const { t } = useTranslation()
  // A stopped reply and its continuations are one row, one text (joined-reply.ts).
  const rows = useMemo(() => joinContinuations(listRows(fullPath)), [fullPath])
  const path = useMemo(() => rows.map((r) => r.view), [rows])
  const scrollRef = useRef<HTMLDivElement>(null)
  const pinned = useRef(true)
  // The ref decides (it changes on every scroll event); the state only draws the button.
  const [away, setAway] = useState(false)
  const virtualizer = useVirtualizer({
    count: path.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 140,
    overscan: 6,
    // An undecided competition's row keeps one key whichever reply is shown, so switching its
    // tabs does not re-create it (the focused tab keeps the focus, a column its picked version).
    getItemKey: (index) => (competing(path, index) ? `${path[index - 1]!.id}:competition` : path[index]!.id)
  })
  // Sibling positions change only when messages are added or removed, not while text streams in.
  const shape = messageSetKey(all)
  // eslint-disable-next-line react-hooks/exhaustive-deps -- keyed by the message set's shape on purpose
  const branches = useMemo(() => branchPositions(all), [shape])

  useEffect(() => {
    const el = scrollRef.current
    if (!el) return
    // Only the reader leaves the bottom (wheel, keys, touch, the scroll bar): the list's own
    // moves — rows measured, the view re-anchored while text streams in — never stop following.
    // Reaching the bottom again, by any means, follows again.
    let dragging = false
    const leave = () => {
      pinned.current = false
      setAway(true)
    }
    const onScroll = () => {
      const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < AT_BOTTOM_PX
      if (atBottom) pinned.current = true
      else if (dragging) pinned.current = false
      setAway(!pinned.current)
    }
    const onWheel = (event: WheelEvent) => {
      if (event.deltaY < 0) leave()
    }
    const onKey = (event: KeyboardEvent) => {
      // Keys inside a tab list (the competition's tabs: Home/End move between tabs) do not scroll.
      if (event.target instanceof Element && event.target.closest('[role="tablist"]')) return
      if (['ArrowUp', 'PageUp', 'Home'].includes(event.key)) leave()
    }
    const onTouch = () => leave()
    // A press on the list itself (not on a message) is its scroll bar.
    const onPointerDown = (event: PointerEvent) => void (dragging = event.target === el)
    const onPointerUp = () => void (dragging = false)
    // Rows measured after a jump (or a finished reply laid out again) change the height: follow it.
    const grown = new ResizeObserver(() => {
      if (pinned.current && el.scrollHeight - el.scrollTop - el.clientHeight >= 1) el.scrollTop = el.scrollHeight
    })
    if (el.firstElementChild) grown.observe(el.firstElementChild)
    el.addEventListener('scroll', onScroll, { passive: true })
    el.addEventListener('wheel', onWheel, { passive: true })
    el.addEventListener('touchmove', onTouch, { passive: true })
    el.addEventListener('keydown', onKey)
    el.addEventListener('pointerdown', onPointerDown)
    window.addEventListener('pointerup', onPointerUp)
    return () => {
      grown.disconnect()
      el.removeEventListener('scroll', onScroll)
      el.removeEventListener('wheel', onWheel)
      el.removeEventListener('touchmove', onTouch)
      el.removeEventListener('keydown', onKey)
      el.removeEventListener('pointerdown', onPointerDown)
      window.removeEventListener('pointerup', onPointerUp)
    }
  }, [])

  const jumpToLatest = () => {
    pinned.current = true
    setAway(false)
    const el = scrollRef.current
    if (el) el.scrollTop = el.scrollHeight
    // The virtualiser measures the rows that come into view; follow once more after that.
    requestAnimationFrame(() => {
      const again = scrollRef.current
      if (again && pinned.current) again.scrollTop = again.scrollHeight
    })
  }
  const jumpRef = useRef(jumpToLatest)
  jumpRef.current = jumpToLatest
  // A message was just sent: show it, wherever the reader was (the reply then keeps it followed).
  useEffect(() => followLatest.subscribe(() => jumpRef.current()), [])

  // A search result asked for this message: stop pinning to the bottom, bring it to the middle
  // of the view and mark it, once it is on the loaded path.
  const focusId = useChat((s) => s.focusMessageId)
  const [highlighted, setHighlighted] = useState<string>()
  useEffect(() => {
    if (!focusId) return
    const index = rows.findIndex((r) => r.parts.some((m) => m.id === focusId))
    if (index < 0) return
    pinned.current = false
    setAway(true)
    setHighlighted(path[index]!.id)
    chatActions.clearFocus()
    virtualizer.scrollToIndex(index, { align: 'center' })
  }, [focusId, rows, path, virtualizer])

  // The last message streaming (drawn in a competition's column or not) keeps the view following.
  const last = fullPath[fullPath.length - 1]
  const lastSize = last ? last.content.reduce((n, part) => n + (part.type === 'text' ? part.text.length : 1), 0) + (last.reasoning?.text.length ?? 0) : 0
  // Pinning to the bottom: one scrollTop write per frame. (virtualizer.scrollToIndex on every
  // update re-measured the scroll extent each time and cost ~20% of streaming time.)
  const frame = useRef<number | undefined>(undefined)
  useLayoutEffect(() => {
    if (!pinned.current || path.length === 0 || frame.current !== undefined) return
    frame.current = requestAnimationFrame(() => {
      frame.current = undefined
      const el = scrollRef.current
      if (el && pinned.current) el.scrollTop = el.scrollHeight
    })
  }, [path.length, fullPath.length, lastSize])
  useEffect(() => () => (frame.current !== undefined ? cancelAnimationFrame(frame.current) : undefined), [])

  return (
    <div className="relative flex min-h-0 flex-1 flex-col">
      <div ref={scrollRef} className="min-h-0 flex-1 overflow-y-auto" data-testid="message-list" role="log" aria-live="polite">
        {/* Rows take the list's width: a reply keeps its reading width (max-w-4xl, centred), an
            undecided competition's columns widen to the space there is. */}
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }} className="w-full">
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index]!
            const message = row.view
            const next = rows[item.index + 1]?.parts[0]
            const prev = path[item.index - 1]
            const prevPart = rows[item.index - 1]?.parts.at(-1)
            const wide = competing(path, item.index)
            return (
              <div
                key={item.key}
                data-index={item.index}
                data-message-id={message.id}
                data-highlighted={message.id === highlighted ? 'true' : undefined}
                ref={virtualizer.measureElement}
                style={{ position: 'absolute', top: 0, left: 0, width: '100%', transform: `translateY(${item.start}px)` }}>
                <div className={`mx-auto ${wide ? 'max-w-[112rem]' : 'max-w-4xl'} ${message.id === highlighted ? 'rounded-lg ring-2 ring-amber-400' : ''}`}>
                {wide ? (
                  // An undecided Chat Competition shows all its replies side by side.
                  <Suspense fallback={<div className="h-24" />}>
                    <CompetitionTurn userMessage={prev!} shownId={message.id} meta={prev!.meta!.competition!} all={all} streaming={streaming} actions={actions} onErrorAction={onErrorAction} />
                  </Suspense>
                ) : (
                  <MessageBoundary content={message.content}>
                    <JoinedMessageView
                      row={row}
                      branchIndex={branches.get(message.id)?.[0] ?? 0}
                      branchCount={branches.get(message.id)?.[1] ?? 1}
                      streaming={streaming}
                      actions={actions}
                      onErrorAction={onErrorAction}
                      continued={isContinuation(next, row.parts.at(-1))}
                      continuation={isContinuation(row.parts[0], prevPart)}
                    />
                  </MessageBoundary>
                )}
                </div>
              </div>
            )
          })}
        </div>
      </div>
      {away && path.length > 0 && (
        <button
          type="button"
          onClick={jumpToLatest}
          data-testid="jump-to-latest"
          className="absolute bottom-3 left-1/2 z-10 flex -translate-x-1/2 items-center gap-1.5 rounded-full border border-zinc-200 bg-white/95 px-3 py-1.5 text-xs font-medium text-zinc-700 shadow-md hover:bg-zinc-50 dark:border-zinc-700 dark:bg-zinc-900/95 dark:text-zinc-200 dark:hover:bg-zinc-800"
        >
          <ArrowDown aria-hidden className="size-3.5" />
          {t('chatPolish.jumpToLatest')}
        </button>
      )}
    </div>
  )
}
