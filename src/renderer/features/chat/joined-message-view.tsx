import { useMemo } from 'react'
import type { LiveMessage } from '../../../shared/chat/apply-event'
import type { Message } from '../../../shared/data/message'
import type { JoinedReply } from './joined-reply'
import { MessageView, type MessageActions, type MessageViewProps } from './message-view'

/**
 * A reply drawn with its continuations as one text (joined-reply.ts). The actions go to the part
 * they are about: Continue to the last part (where it stopped), delete to all the parts,
 * regenerate and branches to the first (the reply itself); copy copies the joined text.
 */
export function JoinedMessageView({
  row,
  streaming,
  actions,
  onErrorAction,
  ...rest
}: Omit<MessageViewProps, 'message' | 'streaming' | 'actions' | 'onErrorAction' | 'parts'> & {
  row: JoinedReply<LiveMessage>
  streaming: Record<string, true>
  actions: MessageActions
  onErrorAction?(message: LiveMessage, fix?: 'trim'): void
}) {
  const { view, parts } = row
  const last = parts[parts.length - 1]!
  const joined = parts.length > 1
  const partFor = (m: Message): LiveMessage => (m.id === view.id ? last : (m as LiveMessage))
  const partActions = useMemo<MessageActions>(
    () =>
      joined
        ? {
            ...actions,
            continueReply: (m) => actions.continueReply(partFor(m)),
            remove: (m) => (m.id === view.id ? actions.remove(parts[0]!, parts.slice(1)) : actions.remove(m))
          }
        : actions,
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the parts are what the view is made of
    [actions, joined, view, last]
  )
  // An error card on the joined reply is the last part's, and so are its actions (as when the
  // part was drawn on its own).
  const onError = onErrorAction && joined ? (m: Message, fix?: 'trim') => onErrorAction(partFor(m), fix) : onErrorAction
  return (
    <MessageView
      {...rest}
      message={view}
      parts={parts.length}
      streaming={parts.some((p) => streaming[p.id])}
      actions={partActions}
      {...(onError ? { onErrorAction: onError } : {})}
    />
  )
}
