import { useVirtualizer } from '@tanstack/react-virtual'
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react'
import type { LiveMessage } from '../../../shared/chat/apply-event'
import { MessageView, type MessageActions } from './message-view'
import { MessageBoundary } from './message-boundary'
import { branchPositions, messageSetKey } from './branches'
import { chatActions, useChat } from './chat-store'

/**
 * The conversation, virtualised: only the messages near the viewport are in the DOM, so a
 * conversation of thousands of messages scrolls and streams smoothly. While the reader is at
 * the bottom, new text keeps the view pinned there; scrolling up stops the pinning.
 */
export function MessageList({
  path,
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
  const scrollRef = useRef<HTMLDivElement>(null)
  const pinned = useRef(true)
  const virtualizer = useVirtualizer({
    count: path.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 140,
    overscan: 6,
    getItemKey: (index) => path[index]!.id
  })
  // Sibling positions change only when messages are added or removed, not while text streams in.
  const shape = messageSetKey(all)
  // eslint-disable-next-line react-hooks/exhaustive-deps -- keyed by the message set's shape on purpose
  const branches = useMemo(() => branchPositions(all), [shape])

  useEffect(() => {
    const el = scrollRef.current
    if (!el) return
    const onScroll = () => {
      pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80
    }
    el.addEventListener('scroll', onScroll, { passive: true })
    return () => el.removeEventListener('scroll', onScroll)
  }, [])

  // A search result asked for this message: stop pinning to the bottom, bring it to the middle
  // of the view and mark it, once it is on the loaded path.
  const focusId = useChat((s) => s.focusMessageId)
  const [highlighted, setHighlighted] = useState<string>()
  useEffect(() => {
    if (!focusId) return
    const index = path.findIndex((m) => m.id === focusId)
    if (index < 0) return
    pinned.current = false
    setHighlighted(focusId)
    chatActions.clearFocus()
    virtualizer.scrollToIndex(index, { align: 'center' })
  }, [focusId, path, virtualizer])

  const last = path[path.length - 1]
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
  }, [path.length, lastSize])
  useEffect(() => () => (frame.current !== undefined ? cancelAnimationFrame(frame.current) : undefined), [])

  return (
    <div ref={scrollRef} className="min-h-0 flex-1 overflow-y-auto" data-testid="message-list" role="log" aria-live="polite">
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }} className="mx-auto w-full max-w-4xl">
        {virtualizer.getVirtualItems().map((item) => {
          const message = path[item.index]!
          return (
            <div
              key={item.key}
              data-index={item.index}
              data-message-id={message.id}
              data-highlighted={message.id === highlighted ? 'true' : undefined}
              className={message.id === highlighted ? 'rounded-lg ring-2 ring-amber-400' : undefined}
              ref={virtualizer.measureElement}
              style={{ position: 'absolute', top: 0, left: 0, width: '100%', transform: `translateY(${item.start}px)` }}>
              <MessageBoundary content={message.content}>
                <MessageView
                  message={message}
                  branchIndex={branches.get(message.id)?.[0] ?? 0}
                  branchCount={branches.get(message.id)?.[1] ?? 1}
                  streaming={Boolean(streaming[message.id])}
                  actions={actions}
                  onErrorAction={onErrorAction}
                />
              </MessageBoundary>
            </div>
          )
        })}
      </div>
    </div>
  )
}
