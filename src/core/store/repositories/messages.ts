import type { Message, MessageInput, MessagePage, MessagePatch } from '../../../shared/data/message'
import type { StoreDb } from '../database'
import { notFound } from '../errors'
import { newId } from '../ids'
import { messageFromRow, messageToRow } from './message-rows'
import { AppErrorException } from '../../../shared/errors/app-error'
import { replyChangedElsewhere, STORE_CLOSED, StreamingWriter, type StreamingWriterOptions } from './streaming-writer'

const storeClosed = (): never => {
  throw new AppErrorException({ errorType: STORE_CLOSED, status: 503, message: 'The local data was closed.' })
}

export interface BeginStreamingInput {
  conversationId: string
  id?: string
  parentId?: string
  topicId?: string
  providerId?: string
  modelId?: string
}

export class MessagesRepository {
  /** Finished replies whose final write failed (disk full…): readers see these instead of the stale `streaming` row. */
  private readonly unsaved = new Map<string, Message>()
  /** Replies streaming now: closing the store saves what they hold beyond their last flush. */
  private readonly live = new Set<StreamingWriter>()

  constructor(private readonly db: StoreDb) {}

  private overlay(message: Message): Message {
    return this.unsaved.get(message.id) ?? message
  }

  private agentOf(conversationId: string): string {
    const row = this.db.first(this.db.q.selectFrom('conversations').select('agent_id').where('id', '=', conversationId))
    if (!row) throw notFound('Conversation', conversationId)
    return row.agent_id
  }

  /** Adds a finished message (a user turn, an imported one, a complete reply). */
  create(input: MessageInput): Message {
    const now = Date.now()
    const message: Message = {
      content: [],
      status: 'complete',
      ...input,
      id: input.id ?? newId(),
      createdAt: input.createdAt ?? now,
      updatedAt: now
    }
    this.db.transaction(() => {
      this.db.run(this.db.q.insertInto('messages').values(messageToRow(message, this.agentOf(message.conversationId))))
      this.db.run(this.db.q.updateTable('conversations').set({ updated_at: now }).where('id', '=', message.conversationId))
    })
    return message
  }

  get(id: string): Message | undefined {
    const row = this.db.first(this.db.q.selectFrom('messages').selectAll().where('id', '=', id))
    return row && this.overlay(messageFromRow(row))
  }

  require(id: string): Message {
    const message = this.get(id)
    if (!message) throw notFound('Message', id)
    return message
  }

  /** Every message of a conversation (or of one topic), oldest first. */
  list(conversationId: string, filter: { topicId?: string } = {}): Message[] {
    let query = this.db.q.selectFrom('messages').selectAll().where('conversation_id', '=', conversationId)
    if (filter.topicId) query = query.where('topic_id', '=', filter.topicId)
    return this.db.all(query.orderBy('created_at').orderBy('seq')).map((row) => this.overlay(messageFromRow(row)))
  }

  /**
   * The newest `limit` messages before `before` (a message id), returned oldest first:
   * what opening a conversation shows, and what scrolling up loads next.
   */
  page(conversationId: string, options: { limit?: number; before?: string } = {}): MessagePage {
    const limit = Math.max(1, Math.min(options.limit ?? 50, 500))
    let query = this.db.q.selectFrom('messages').selectAll().where('conversation_id', '=', conversationId)
    if (options.before) {
      const cursor = this.db.first(this.db.q.selectFrom('messages').select(['created_at', 'seq']).where('id', '=', options.before))
      if (!cursor) throw notFound('Message', options.before)
      query = query.where((eb) =>
        eb.or([eb('created_at', '<', cursor.created_at), eb.and([eb('created_at', '=', cursor.created_at), eb('seq', '<', cursor.seq)])])
      )
    }
    const rows = this.db.all(query.orderBy('created_at', 'desc').orderBy('seq', 'desc').limit(limit + 1))
    const hasMore = rows.length > limit
    return { messages: rows.slice(0, limit).reverse().map((row) => this.overlay(messageFromRow(row))), hasMore }
  }

  update(id: string, patch: MessagePatch): Message {
    return this.db.transaction(() => {
      const current = this.require(id)
      const next: Message = { ...current, ...patch, id, updatedAt: Date.now() }
      const { id: _id, conversation_id: _c, agent_id: _a, created_at: _t, ...row } = messageToRow(next, '')
      this.db.run(this.db.q.updateTable('messages').set(row).where('id', '=', id))
      return next
    })
  }

  /** Moves a message under another parent (or to the root): deleting a turn keeps what followed it. */
  reparent(id: string, parentId: string | undefined): void {
    this.db.run(this.db.q.updateTable('messages').set({ parent_id: parentId ?? null, updated_at: Date.now() }).where('id', '=', id))
  }

  delete(id: string): boolean {
    return this.db.run(this.db.q.deleteFrom('messages').where('id', '=', id)) > 0
  }

  /**
   * Starts an assistant reply: inserts a `streaming` row now (so a crash leaves a trace) and
   * returns the writer that fills it. Call `finish` on every path, including errors.
   */
  beginStreaming(input: BeginStreamingInput, options: StreamingWriterOptions = {}): StreamingWriter {
    const message = this.create({ ...input, role: 'assistant', content: [], status: 'streaming' })
    const update = (m: Message) => {
      const { id: _id, conversation_id: _c, agent_id: _a, created_at: _t, ...row } = messageToRow(m, '')
      return this.db.q.updateTable('messages').set(row).where('id', '=', m.id)
    }
    const writer: StreamingWriter = new StreamingWriter(
      message,
      {
        // Only a row still `streaming` is written: a row finished elsewhere (start-up repair by a
        // second process, a delete) is never resurrected by a late flush, and the writer is told
        // loudly instead of its writes vanishing.
        write: (m) => {
          if (this.db.run(update(m).where('status', '=', 'streaming')) === 0) throw replyChangedElsewhere()
        },
        finish: (m) => {
          this.live.delete(writer)
          return this.db.sqlite.open === false ? storeClosed() : this.db.transaction(() => {
            if (this.db.run(update(m).where('status', '=', 'streaming')) === 0) throw replyChangedElsewhere()
            this.db.run(this.db.q.updateTable('conversations').set({ updated_at: m.updatedAt }).where('id', '=', m.conversationId))
          })
        },
        unsaved: (m, id) => {
          if (m) this.unsaved.set(id, m)
          else this.unsaved.delete(id)
        }
      },
      options
    )
    this.live.add(writer)
    return writer
  }

  /**
   * Before the store closes (a quit, `serve` stopped): each reply still streaming is saved as
   * interrupted with everything it streamed, not only what its last timed flush wrote, so the
   * text kept is the text the user saw.
   */
  finishStreaming(): void {
    for (const writer of [...this.live]) writer.finish('interrupted')
    this.live.clear()
  }

  /** Start-up repair: replies left `streaming` by a crash become `interrupted`. Returns how many. */
  repairStreaming(): number {
    return this.db.run(this.db.q.updateTable('messages').set({ status: 'interrupted', updated_at: Date.now() }).where('status', '=', 'streaming'))
  }

  count(conversationId?: string): number {
    let query = this.db.q.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n'))
    if (conversationId) query = query.where('conversation_id', '=', conversationId)
    return this.db.first(query)?.n ?? 0
  }
}
