import type { Message } from '../data/message'

/**
 * The one definition of a continuation (chat.continue): `reply` is an assistant message that goes
 * on from the interrupted assistant reply `partial`, as its child.
 */
export const isContinuation = (reply: Message | undefined, partial: Message | undefined): boolean =>
  Boolean(reply && partial && partial.status === 'interrupted' && partial.role === 'assistant' && reply.role === 'assistant' && reply.parentId === partial.id)

/**
 * A continuation that reads as one text with the reply it goes on from: neither is a tool step
 * (a tool step is a message of its own). The chat draws them as one reply, translation and the
 * history sent to the model join them.
 */
export const joinsAsOneText = (reply: Message | undefined, partial: Message | undefined): boolean =>
  isContinuation(reply, partial) && !reply!.toolCalls?.length && !partial!.toolCalls?.length
