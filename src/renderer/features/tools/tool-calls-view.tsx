import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { Message, ToolResult } from '../../../shared/data/message'
import type { ToolCall } from '../../../shared/stream/events'
import { answerApproval, runKey, useToolRuns } from './tool-run-store'
import { ServerRequestCards } from './server-request-cards'

/** Results longer than this start collapsed. */
const LONG_RESULT = 600

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}

function ResultView({ result }: { result: ToolResult }) {
  const { t } = useTranslation()
  const long = result.content.length > LONG_RESULT
  const [open, setOpen] = useState(!long)
  const tone =
    result.outcome === 'denied' ? 'text-amber-700 dark:text-amber-400' : result.outcome === 'stopped' ? 'text-zinc-600 dark:text-zinc-400' : result.isError ? 'text-red-700 dark:text-red-400' : 'text-zinc-700 dark:text-zinc-300'
  return (
    <div className={`border-t border-zinc-200 px-2 py-1 dark:border-zinc-800 ${tone}`} data-testid="tool-result" data-outcome={result.outcome ?? (result.isError ? 'error' : 'ok')}>
      <div className="flex items-center justify-between gap-2">
        <span className="font-medium">
          {result.outcome === 'denied'
            ? t('tools.run.denied')
            : result.outcome === 'stopped'
              ? t('tools.run.stopped')
              : result.isError
                ? t('tools.run.failed', { type: result.errorType ?? 'Error' })
                : t('tools.run.result')}
          {result.durationMs !== undefined && <span className="ml-2 font-normal text-zinc-500">{t('tools.run.took', { s: (result.durationMs / 1000).toFixed(1) })}</span>}
        </span>
        {long && (
          <button className="text-accent underline" onClick={() => setOpen(!open)} data-testid="tool-result-toggle">
            {open ? t('tools.run.collapse') : t('tools.run.expand', { n: result.content.length.toLocaleString() })}
          </button>
        )}
      </div>
      {(result.parts ?? []).filter((p) => p.type === 'image').map((p, i) => (p.type === 'image' ? <img key={i} alt="" className="my-1 max-h-48 rounded" src={`data:${p.mimeType};base64,${p.data}`} /> : null))}
      {(result.parts ?? []).filter((p) => p.type === 'resource').map((p, i) => (p.type === 'resource' ? <div key={i} className="font-mono text-[11px] text-zinc-500">{p.uri}</div> : null))}
      <pre className={`overflow-x-auto font-mono text-[11px] whitespace-pre-wrap ${open ? '' : 'max-h-16 overflow-hidden'}`}>{open ? pretty(result.content) : result.content.slice(0, 300)}</pre>
    </div>
  )
}

function CallView({ message, call, result, streaming }: { message: Message; call: ToolCall; result?: ToolResult; streaming: boolean }) {
  const { t } = useTranslation()
  const key = runKey(message.id, call.id)
  const approval = useToolRuns((s) => s.approvals[key])
  const running = useToolRuns((s) => s.running[key])
  const progress = useToolRuns((s) => s.progress[key])
  const name = result?.tool ?? approval?.tool ?? call.function.name
  return (
    <div className="rounded-md border border-zinc-200 text-xs dark:border-zinc-800" data-testid="tool-call" data-tool={name}>
      <details open={!!approval}>
        <summary className="cursor-pointer px-2 py-1 font-mono">
          {t('chat.toolCall')}: {name}()
          {!result && !approval && !running && !streaming && message.status !== 'streaming' && !message.toolResults && (
            // No tool of this agent answers this call (none configured): it was shown, not run.
            <span className="ml-2 rounded bg-amber-100 px-1.5 py-0.5 text-[10px] font-medium text-amber-800 dark:bg-amber-900/40 dark:text-amber-300" title={t('controls.toolNotRunHint')} data-testid="tool-not-run">
              {t('controls.toolNotRun')}
            </span>
          )}
          {running && !result && <span className="ml-2 text-zinc-500" data-testid="tool-running">{t('tools.run.running')}</span>}
          {progress && !result && (
            <span className="ml-2 text-zinc-500" data-testid="tool-progress">
              {progress.total ? `${Math.round((progress.progress / progress.total) * 100)}%` : progress.progress}
              {progress.message ? ` · ${progress.message}` : ''}
            </span>
          )}
        </summary>
        <pre className="overflow-x-auto px-2 py-1">{pretty(call.function.arguments)}</pre>
      </details>
      {approval && (
        <div className="space-y-2 border-t border-amber-300 bg-amber-50 px-2 py-2 dark:border-amber-700 dark:bg-amber-950" data-testid="approval-card" role="group" aria-label={t('tools.approval.title')}>
          <div className="font-medium">{t('tools.approval.question', { tool: approval.tool, server: approval.serverName })}</div>
          <pre className="max-h-48 overflow-auto rounded bg-white p-2 font-mono text-[11px] dark:bg-zinc-900" data-testid="approval-arguments">{approval.arguments}</pre>
          <div className="flex flex-wrap gap-2">
            <button className="rounded bg-accent px-2 py-1 text-white" onClick={() => void answerApproval(approval, 'allow')} data-testid="approval-allow">{t('tools.approval.allow')}</button>
            <button className="rounded border border-zinc-300 px-2 py-1 dark:border-zinc-700" onClick={() => void answerApproval(approval, 'always')} data-testid="approval-always">{t('tools.approval.always')}</button>
            <button className="rounded border border-zinc-300 px-2 py-1 dark:border-zinc-700" onClick={() => void answerApproval(approval, 'deny')} data-testid="approval-deny">{t('tools.approval.deny')}</button>
            <button className="rounded border border-zinc-300 px-2 py-1 dark:border-zinc-700" onClick={() => void answerApproval(approval, 'never')} data-testid="approval-never">{t('tools.approval.never')}</button>
          </div>
        </div>
      )}
      {!result && <ServerRequestCards messageId={message.id} callId={call.id} />}
      {result && <ResultView result={result} />}
      {!result && !approval && !running && !streaming && message.status !== 'streaming' && message.toolResults && (
        <div className="border-t border-zinc-200 px-2 py-1 text-zinc-500 dark:border-zinc-800">{t('tools.run.noResult')}</div>
      )}
    </div>
  )
}

/** A reply's tool calls: arguments, the approval card while one waits, progress, and the structured result. */
export function ToolCallsView({ message, streaming }: { message: Message; streaming: boolean }) {
  const calls = message.toolCalls ?? []
  if (!calls.length) return null
  const results = new Map((message.toolResults ?? []).map((r) => [r.toolCallId, r]))
  return (
    <div className="mt-2 space-y-1" data-testid="tool-calls">
      {calls.map((call) => (
        <CallView key={call.id} message={message} call={call} result={results.get(call.id)} streaming={streaming} />
      ))}
    </div>
  )
}
