import { memo, useEffect, useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { ArrowDown, ArrowUp, Check, Copy, X } from 'lucide-react'
import { messageText, type Message } from '../../../shared/data/message'
import { ErrorCard } from './error-card'
import { MessageFiles } from '../attachments/message-files'
import { MessageImages } from './message-images'
import { ReadAloud } from '../voice/read-aloud'
import { linkCitationMarkers, sourceList } from '../../../shared/chat/citations'
import { ChosenOptionsLine, SourceList, SummaryMarker, Translations } from './message-extras'
import { chatActions } from './chat-store'
import { ToolCallsView } from '../tools/tool-calls-view'
import { ReplySources, ReplySourcesProvider } from '../knowledge/reply-sources'
import type { ReplySource } from '../../../shared/knowledge/types'
import { linkKnowledgeMarkers } from '../../../shared/knowledge/citations'
import { ReplyText } from './reply-text'
import { InterruptedNote, RetryNote } from './message-status'
import { useModelLabel } from './model-picker'
import { formatUsageCost } from '../usage/usage-format'

export interface MessageActions {
  copy(message: Message): void
  /** `send` false: one's own message is corrected in place, nothing is asked again. */
  edit(message: Message, text: string, send?: boolean): void
  regenerate(message: Message): void
  deleteAndRegenerate(message: Message): void
  /** `also`: deleted with it (a reply's continuations, shown as one reply with it). */
  remove(message: Message, also?: Message[]): void
  continueReply(message: Message): void
  switchBranch(message: Message, direction: -1 | 1): void
}

/** One empty list for replies without knowledge sources (a stable value for the provider below). */
const NO_SOURCES: readonly ReplySource[] = []
const formatNumber = (n: number | undefined) => (n === undefined ? '–' : n.toLocaleString())
const formatCost = formatUsageCost

function Stats({ message }: { message: Message }) {
  const { t } = useTranslation()
  const u = message.usage
  if (!u && !message.speed && !message.cost) return null
  return (
    <div className="mt-2 flex flex-wrap gap-x-3 gap-y-1 text-[11px] text-zinc-500 dark:text-zinc-400" data-testid="message-stats">
      {u && (
        <>
          <span title={t('chat.stats.input')} className="inline-flex items-center gap-0.5">
            <ArrowUp aria-hidden className="size-3" />
            {formatNumber(u.totalInputTokens)}
          </span>
          <span title={t('chat.stats.output')} className="inline-flex items-center gap-0.5">
            <ArrowDown aria-hidden className="size-3" />
            {formatNumber(u.totalOutputTokens)}
          </span>
          {u.inputCachedTokens ? <span>{t('chat.stats.cached', { n: formatNumber(u.inputCachedTokens) })}</span> : null}
          {u.outputReasoningTokens ? <span>{t('chat.stats.reasoning', { n: formatNumber(u.outputReasoningTokens) })}</span> : null}
        </>
      )}
      {message.cost && <span data-testid="message-cost">{formatCost(message.cost.total, message.cost.currency)}</span>}
      {message.speed?.tps !== undefined && <span>{t('chat.stats.tps', { n: message.speed.tps.toFixed(1) })}</span>}
      {message.speed?.ttft !== undefined && <span>{t('chat.stats.ttft', { n: Math.round(message.speed.ttft) })}</span>}
    </div>
  )
}

/** The reply's model by its display name, as in the header chip; the id is in the tooltip. */
function ModelName({ providerId, modelId }: { providerId?: string; modelId: string }) {
  const label = useModelLabel(providerId ? { providerId, modelId } : undefined)
  return (
    <div className="mb-1 text-xs font-medium text-zinc-500" title={providerId ? `${providerId}/${modelId}` : modelId} data-testid="message-model">
      {label.model ?? modelId}
    </div>
  )
}

function Reasoning({ text, durationMs, streaming }: { text: string; durationMs?: number; streaming: boolean }) {
  const { t } = useTranslation()
  return (
    <details className="mb-2 rounded-lg border border-zinc-200 bg-zinc-50 text-sm dark:border-zinc-800 dark:bg-zinc-900" open={streaming} data-testid="reasoning">
      <summary className="cursor-pointer px-3 py-1.5 text-xs font-medium text-zinc-600 select-none dark:text-zinc-400">
        {streaming ? t('chat.thinking') : durationMs !== undefined ? t('chat.thoughtFor', { s: (durationMs / 1000).toFixed(1) }) : t('chat.thought')}
      </summary>
      <div className="border-t border-zinc-200 px-3 py-2 whitespace-pre-wrap text-zinc-600 dark:border-zinc-800 dark:text-zinc-400">{text}</div>
    </details>
  )
}

export interface MessageViewProps {
  message: Message
  /** Position among sibling branches. */
  branchIndex: number
  branchCount: number
  streaming: boolean
  actions: MessageActions
  onErrorAction?(message: Message, fix?: 'trim'): void
  /** An interrupted reply whose continuation follows it (its Continue is spent). */
  continued?: boolean
  /** This reply continues the interrupted one above it (drawn as its second part). */
  continuation?: boolean
  /** A reply joined with its continuations (joined-reply.ts): how many messages it shows as one. */
  parts?: number
}

/** "Copied" for a moment after the copy button was pressed. */
function useFlag(ms: number): [boolean, () => void] {
  const [on, setOn] = useState(false)
  useEffect(() => {
    if (!on) return
    const timer = setTimeout(() => setOn(false), ms)
    return () => clearTimeout(timer)
  }, [on, ms])
  return [on, () => setOn(true)]
}

export const MessageView = memo(function MessageView({ message, branchIndex, branchCount, streaming, actions, onErrorAction, continued = false, continuation = false, parts = 1 }: MessageViewProps) {
  const { t } = useTranslation()
  const [editing, setEditing] = useState<string>()
  const [copied, flagCopied] = useFlag(1500)
  // A read-aloud failure shows under the toolbar, which is hidden until hover.
  const [speechError, setSpeechError] = useState<string>()
  const text = messageText(message.content)
  const isUser = message.role === 'user'
  // Measured live while it streams; afterwards the duration the core kept with the reply.
  const reasoningMs = (message as Message & { reasoningDurationMs?: number }).reasoningDurationMs ?? message.reasoning?.durationMs
  // Numbered sources under the reply; inline [n] markers link to them.
  const sources = useMemo(() => sourceList(message.grounding?.citations), [message.grounding])
  // Knowledge sources (saved before the reply streams): their [n] markers open the source.
  // A reply's knowledge sources come with it (its grounding), from the first event of the stream.
  const kbSources = message.grounding?.knowledge ?? NO_SOURCES
  const linked = useMemo(() => linkKnowledgeMarkers(linkCitationMarkers(text, sources), new Set(kbSources.map((s) => s.n))), [text, sources, kbSources])
  const button = 'rounded px-1.5 py-0.5 hover:bg-zinc-200 hover:text-zinc-900 dark:hover:bg-zinc-800 dark:hover:text-white'
  return (
    <article
      className={`group px-6 ${continuation ? 'pt-0 pb-3' : 'py-3'} ${isUser ? 'flex flex-col items-end' : ''}`}
      data-testid={`message-${message.role}`}
      data-status={message.status}
      data-continuation={continuation || undefined}
      data-parts={parts > 1 ? parts : undefined}
      aria-busy={streaming}
    >
      <ReplySourcesProvider sources={kbSources}>
      {/* While one's own message is edited its bubble takes the column's width (the box fits inside it). */}
      <div className={isUser ? `${editing !== undefined ? 'w-full max-w-3xl' : 'max-w-[80%]'} rounded-2xl bg-accent/10 px-4 py-2 dark:bg-accent/20` : 'max-w-3xl'} data-testid={isUser ? 'user-bubble' : undefined}>
        {!isUser && message.modelId && !continuation && <ModelName providerId={message.providerId} modelId={message.modelId} />}
        {!isUser && <ChosenOptionsLine options={message.meta?.options} />}
        {message.reasoning?.text && <Reasoning text={message.reasoning.text} durationMs={reasoningMs} streaming={streaming && !text} />}
        {editing !== undefined ? (
          <form
            onSubmit={(e) => {
              e.preventDefault()
              actions.edit(message, editing)
              setEditing(undefined)
            }}
            className="space-y-2"
          >
            <textarea
              aria-label={t('chat.edit')}
              value={editing}
              onChange={(e) => setEditing(e.target.value)}
              onKeyDown={(e) => e.key === 'Escape' && setEditing(undefined)}
              className="min-h-24 w-full rounded-md border border-zinc-300 bg-white p-2 text-sm dark:border-zinc-700 dark:bg-zinc-900"
              autoFocus
              data-testid="edit-input"
            />
            <div className="flex justify-end gap-2 text-xs">
              <button type="button" onClick={() => setEditing(undefined)} className={button}>
                {t('chat.cancel')}
              </button>
              {isUser && (
                // Keeps the corrected text without asking again (Save & send makes a new branch).
                <button
                  type="button"
                  className="rounded border border-accent px-2 py-1 text-accent"
                  data-testid="edit-save-only"
                  onClick={() => {
                    actions.edit(message, editing, false)
                    setEditing(undefined)
                  }}
                >
                  {t('chat.save')}
                </button>
              )}
              <button type="submit" className="rounded bg-accent px-2 py-1 text-white" data-testid="edit-save">
                {isUser ? t('chat.saveAndSend') : t('chat.save')}
              </button>
            </div>
          </form>
        ) : isUser ? (
          <div className="whitespace-pre-wrap" data-testid="message-text">
            {text}
          </div>
        ) : (
          // Artifact tags become cards that open the side panel (plain markdown otherwise).
          <ReplyText messageId={message.id} createdAt={message.createdAt} text={linked} streaming={streaming} />
        )}
        {message.files && message.files.length > 0 && <MessageFiles fileIds={message.files} />}
        {!isUser && <ReplySources text={text} query={message.meta?.knowledgeQuery} />}
        <MessageImages content={message.content} />
        <ToolCallsView message={message} streaming={streaming} />
        <SourceList sources={sources} messageId={message.id} />
        {!streaming && !isUser && text.trim() && <Translations message={message} onUpdated={chatActions.replaceMessage} />}
        {streaming && !text && !message.reasoning?.text && (
          <div className="flex gap-1 py-2" aria-label={t('chat.waiting')}>
            <span className="size-1.5 animate-bounce rounded-full bg-zinc-400" />
            <span className="size-1.5 animate-bounce rounded-full bg-zinc-400 [animation-delay:120ms]" />
            <span className="size-1.5 animate-bounce rounded-full bg-zinc-400 [animation-delay:240ms]" />
          </div>
        )}
        {streaming && message.retrying && <RetryNote notice={message.retrying} />}
        {/* An interrupted reply says why and offers Continue (the dropped connection's error with it). */}
        {message.error && message.status !== 'interrupted' && <ErrorCard error={message.error} message={message} onAction={onErrorAction} />}
        {message.status === 'interrupted' && !streaming && !continued && <InterruptedNote message={message} onContinue={() => actions.continueReply(message)} />}
        {!isUser && <Stats message={message} />}
      </div>
      {/* Under one's own bubble, not inside it: its hidden control left an empty line in the bubble. */}
      {isUser && !streaming && text.trim() && editing === undefined && <Translations message={message} onUpdated={chatActions.replaceMessage} />}
      </ReplySourcesProvider>
      {!streaming && editing === undefined && (
        // Touch screens have no hover: the actions stay on screen there (and wrap, one per word group).
        <div className="mt-1 flex flex-wrap items-center gap-1 text-xs whitespace-nowrap text-zinc-500 opacity-0 transition-opacity group-focus-within:opacity-100 group-hover:opacity-100 [@media(hover:none)]:opacity-100 [@media(max-width:768px)]:opacity-100">
          {branchCount > 1 && (
            <span className="mr-1 flex items-center gap-1" data-testid="branch-switch">
              <button className={button} aria-label={t('chat.previousVersion')} onClick={() => actions.switchBranch(message, -1)} disabled={branchIndex === 0}>
                ‹
              </button>
              {branchIndex + 1}/{branchCount}
              <button className={button} aria-label={t('chat.nextVersion')} onClick={() => actions.switchBranch(message, 1)} disabled={branchIndex === branchCount - 1}>
                ›
              </button>
            </span>
          )}
          <button
            className={`${button} inline-flex items-center gap-1`}
            onClick={() => {
              actions.copy(message)
              flagCopied()
            }}
            data-testid="op-copy"
            data-copied={copied || undefined}
          >
            {copied ? <Check aria-hidden className="size-3.5 text-emerald-600" /> : <Copy aria-hidden className="size-3.5" />}
            <span aria-live="polite">{copied ? t('chat.copied') : t('chat.copy')}</span>
          </button>
          {text.trim() && <ReadAloud messageId={message.id} text={text} buttonClass={button} onError={setSpeechError} />}
          {/* A reply joined with its continuations is several stored messages: not edited as one. */}
          {parts === 1 && (
            <button className={button} onClick={() => setEditing(text)} data-testid="op-edit">
              {t('chat.edit')}
            </button>
          )}
          {!isUser && (
            <>
              <button className={button} onClick={() => actions.regenerate(message)} data-testid="op-regenerate">
                {t('chat.regenerate')}
              </button>
              <button className={button} onClick={() => actions.deleteAndRegenerate(message)} data-testid="op-delete-regenerate">
                {t('chat.deleteAndRegenerate')}
              </button>
            </>
          )}
          <button className={button} onClick={() => actions.remove(message)} data-testid="op-delete">
            {t('chat.delete')}
          </button>
        </div>
      )}
      {speechError && (
        <div role="alert" className="mt-1 flex max-w-3xl items-start gap-2 rounded-md border border-red-200 bg-red-50 px-2 py-1 text-xs text-red-700 dark:border-red-900 dark:bg-red-950/50 dark:text-red-300" data-testid="read-aloud-error">
          <span className="min-w-0 flex-1">{t('chatPolish.readAloudFailed', { reason: speechError })}</span>
          <button aria-label={t('chatPolish.dismiss')} onClick={() => setSpeechError(undefined)} className="shrink-0 rounded p-0.5 hover:bg-red-100 dark:hover:bg-red-900">
            <X aria-hidden className="size-3.5" />
          </button>
        </div>
      )}
      {!streaming && <SummaryMarker message={message} onUpdated={chatActions.replaceMessage} />}
    </article>
  )
})
