import { lazy, Suspense, useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { ChevronLeft, ChevronRight, X } from 'lucide-react'
import type { ParsedArtifact } from '../../../shared/artifacts/artifact-tag'
import { fixRequestText, runsInSandbox } from '../../../shared/artifacts/artifact-kinds'
import { artifactFileName, artifactMimeType } from '../../../shared/artifacts/artifact-files'
import { useApp } from '../../stores/app-store'
import { artifactActions, useArtifacts } from './artifact-store'
import { ArtifactFrame } from './artifact-frame'
import { CodeView } from './code-view'
import { DiffView } from './diff-view'
import { artifactSandboxUrl, encodeArtifactFragment } from './heartbeat'
import type { ArtifactRuntimeType } from '../../artifact-runtime/protocol'

const MermaidBlock = lazy(() => import('../chat/markdown/mermaid-block'))

const button = 'rounded px-2 py-1 text-xs hover:bg-zinc-200 dark:hover:bg-zinc-800 disabled:opacity-40'

/**
 * The side panel: one artifact with its versions, Preview / Code / Changes, and the
 * actions. Loaded only when an artifact is opened (its highlighter and diff stay out of the
 * entry chunk). `versions` are the versions of one identifier, oldest first.
 */
export default function ArtifactPanel({ versions, keyName, onAskFix }: { versions: readonly ParsedArtifact[]; keyName: string; onAskFix(text: string): void }) {
  const { t } = useTranslation()
  const { version, tab, collapsed, width, network } = useArtifacts()
  const mode = useApp((s) => s.info?.mode)
  const index = Math.min(version ?? versions.length - 1, versions.length - 1)
  const artifact = versions[index]
  const [error, setError] = useState<string>()
  const [copied, setCopied] = useState(false)
  const dragging = useRef(false)
  useEffect(() => setError(undefined), [keyName, index, artifact?.content])
  if (!artifact) return null
  const allowed = Boolean(network[keyName])
  const preview = artifact.type !== 'code'
  const shownTab = !artifact.complete || (!preview && tab === 'preview') ? 'code' : tab === 'diff' && index === 0 ? 'preview' : tab

  if (collapsed) {
    return (
      <aside className="flex w-10 shrink-0 flex-col items-center gap-2 border-l border-zinc-200 py-2 dark:border-zinc-800" data-testid="artifact-panel" data-collapsed="true">
        <button className={button} onClick={() => artifactActions.toggleCollapsed()} aria-label={t('artifacts.expand')} title={t('artifacts.expand')} data-testid="artifact-expand">
          <ChevronLeft aria-hidden className="size-3.5" />
        </button>
        <span className="text-xs text-zinc-500 [writing-mode:vertical-rl]">{artifact.title}</span>
      </aside>
    )
  }

  const copy = async () => {
    await navigator.clipboard.writeText(artifact.content)
    setCopied(true)
    setTimeout(() => setCopied(false), 1500)
  }
  const download = () => {
    const url = URL.createObjectURL(new Blob([artifact.content], { type: artifactMimeType(artifact.type) }))
    const a = document.createElement('a')
    a.href = url
    a.download = artifactFileName(artifact.title, artifact.type, artifact.language)
    a.click()
    setTimeout(() => URL.revokeObjectURL(url), 10_000)
  }
  const openInTab = () => {
    const fragment = encodeArtifactFragment({ artifactType: artifact.type, content: artifact.content, title: artifact.title })
    // A page of its own always runs without the network (nothing but its address could say otherwise).
    window.open(`${artifactSandboxUrl(location.origin, false)}#${fragment}`, '_blank', 'noopener,noreferrer')
  }

  return (
    <aside className="relative flex shrink-0 flex-col border-l border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-950" style={{ width }} data-testid="artifact-panel">
      {/* A focusable window splitter (WAI-ARIA separator pattern): arrows resize it. */}
      {/* eslint-disable-next-line jsx-a11y/no-noninteractive-element-interactions */}
      <div
        role="separator"
        aria-orientation="vertical"
        aria-label={t('artifacts.resize')}
        // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex
        tabIndex={0}
        className="absolute inset-y-0 -left-1 w-2 cursor-col-resize hover:bg-accent/30"
        onPointerDown={(e) => {
          dragging.current = true
          e.currentTarget.setPointerCapture(e.pointerId)
        }}
        onPointerMove={(e) => dragging.current && artifactActions.setWidth(window.innerWidth - e.clientX)}
        onPointerUp={() => (dragging.current = false)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowLeft') artifactActions.setWidth(width + 32)
          if (e.key === 'ArrowRight') artifactActions.setWidth(width - 32)
        }}
        data-testid="artifact-resize"
      />
      <header className="flex flex-wrap items-center gap-1 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
        <h2 className="mr-auto truncate text-sm font-semibold" data-testid="artifact-title">
          {artifact.title}
        </h2>
        {versions.length > 1 && (
          <span className="flex items-center gap-1 text-xs text-zinc-500" data-testid="artifact-versions">
            <button className={button} onClick={() => artifactActions.setVersion(index - 1)} disabled={index === 0} aria-label={t('artifacts.previousVersion')} data-testid="artifact-prev">
              <ChevronLeft aria-hidden className="size-3.5" />
            </button>
            <span data-testid="artifact-version">{t('artifacts.version', { n: index + 1, count: versions.length })}</span>
            <button
              className={button}
              onClick={() => artifactActions.setVersion(index + 1 >= versions.length - 1 ? undefined : index + 1)}
              disabled={index === versions.length - 1}
              aria-label={t('artifacts.nextVersion')}
              data-testid="artifact-next"
            >
              <ChevronRight aria-hidden className="size-3.5" />
            </button>
          </span>
        )}
        <button className={button} onClick={() => artifactActions.toggleCollapsed()} aria-label={t('artifacts.collapse')} title={t('artifacts.collapse')} data-testid="artifact-collapse">
          <ChevronRight aria-hidden className="size-3.5" />
        </button>
        <button className={button} onClick={() => artifactActions.close()} aria-label={t('artifacts.close')} title={t('artifacts.close')} data-testid="artifact-close">
          <X aria-hidden className="size-3.5" />
        </button>
      </header>
      <div className="flex flex-wrap items-center gap-1 border-b border-zinc-200 px-3 py-1 dark:border-zinc-800" role="tablist">
        {preview && (
          <button role="tab" aria-selected={shownTab === 'preview'} className={`${button} ${shownTab === 'preview' ? 'bg-zinc-200 dark:bg-zinc-800' : ''}`} onClick={() => artifactActions.setTab('preview')} disabled={!artifact.complete} data-testid="artifact-tab-preview">
            {t('artifacts.preview')}
          </button>
        )}
        <button role="tab" aria-selected={shownTab === 'code'} className={`${button} ${shownTab === 'code' ? 'bg-zinc-200 dark:bg-zinc-800' : ''}`} onClick={() => artifactActions.setTab('code')} data-testid="artifact-tab-code">
          {t('artifacts.code')}
        </button>
        {index > 0 && (
          <button role="tab" aria-selected={shownTab === 'diff'} className={`${button} ${shownTab === 'diff' ? 'bg-zinc-200 dark:bg-zinc-800' : ''}`} onClick={() => artifactActions.setTab('diff')} data-testid="artifact-tab-diff">
            {t('artifacts.changes')}
          </button>
        )}
        <span className="ml-auto flex items-center gap-1">
          <button className={button} onClick={() => void copy()} data-testid="artifact-copy">
            {copied ? t('chat.copied') : t('chat.copy')}
          </button>
          <button className={button} onClick={download} data-testid="artifact-download">
            {t('artifacts.download')}
          </button>
          {runsInSandbox(artifact.type) && (
            // Browser mode: a tab. The desktop: a window of its own, which the shell allows for
            // this page alone, without the bridge (src/main/policy/artifact-window.ts).
            <button className={button} onClick={openInTab} data-testid="artifact-open-tab">
              {mode === 'browser' ? t('artifacts.openInTab') : t('artifacts.openInWindow')}
            </button>
          )}
          {runsInSandbox(artifact.type) && (
            <label className="flex items-center gap-1 text-xs text-zinc-500" title={t('artifacts.networkHint')}>
              <input type="checkbox" checked={allowed} onChange={(e) => artifactActions.allowNetwork(keyName, e.target.checked)} data-testid="artifact-network" />
              {t('artifacts.network')}
            </label>
          )}
        </span>
      </div>
      {!artifact.complete && <div className="border-b border-zinc-200 px-3 py-1 text-xs text-zinc-500 dark:border-zinc-800" data-testid="artifact-writing">{t('artifacts.writing')}</div>}
      {error && (
        <div className="flex items-start gap-2 border-b border-red-200 bg-red-50 px-3 py-2 text-xs text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-300" data-testid="artifact-error">
          <span className="line-clamp-3 min-w-0 flex-1 break-words whitespace-pre-wrap">{error}</span>
          <button className="shrink-0 rounded border border-current px-2 py-0.5" onClick={() => onAskFix(fixRequestText(artifact.title, error))} data-testid="artifact-fix">
            {t('artifacts.askFix')}
          </button>
        </div>
      )}
      <div className="min-h-0 flex-1 overflow-hidden">
        {shownTab === 'code' ? (
          <CodeView type={artifact.type} language={artifact.language} content={artifact.content} />
        ) : shownTab === 'diff' ? (
          <DiffView before={versions[index - 1]?.content ?? ''} after={artifact.content} />
        ) : artifact.type === 'mermaid' ? (
          <div className="h-full overflow-auto p-3">
            <Suspense fallback={null}>
              <MermaidBlock source={artifact.content} />
            </Suspense>
          </div>
        ) : (
          <ArtifactFrame
            key={`${keyName}:${index}:${allowed ? 1 : 0}`}
            type={artifact.type as ArtifactRuntimeType}
            content={artifact.content}
            title={artifact.title}
            network={allowed}
            onError={(message) => setError((previous) => previous ?? message)}
          />
        )}
      </div>
    </aside>
  )
}
