import { lazy, Suspense, useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { OpenAsArtifact } from '../../artifacts/open-as-artifact'

const MermaidBlock = lazy(() => import('./mermaid-block'))

const textOf = (node: ReactNode): string => {
  if (typeof node === 'string' || typeof node === 'number') return String(node)
  if (Array.isArray(node)) return node.map(textOf).join('')
  if (node && typeof node === 'object' && 'props' in node) return textOf((node as { props: { children?: ReactNode } }).props.children)
  return ''
}

export function CodeBlock({ language, className, children }: { language?: string; className?: string; children: ReactNode }) {
  const { t } = useTranslation()
  const [copied, setCopied] = useState(false)
  const code = textOf(children).replace(/\n$/, '')
  if (language === 'mermaid') {
    return (
      <>
        <Suspense fallback={<pre className="rounded-lg bg-zinc-900 p-3 text-xs text-zinc-100">{code}</pre>}>
          <MermaidBlock source={code} />
        </Suspense>
        <OpenAsArtifact language={language} code={code} className="mt-1 rounded px-1.5 py-0.5 text-xs text-zinc-500 hover:bg-zinc-200 dark:hover:bg-zinc-800" />
      </>
    )
  }
  const copy = async () => {
    await navigator.clipboard.writeText(code)
    setCopied(true)
    setTimeout(() => setCopied(false), 1500)
  }
  return (
    <div className="group relative overflow-hidden rounded-lg border border-zinc-200 bg-[#0d1117] dark:border-zinc-800">
      <div className="flex items-center justify-between border-b border-white/10 px-3 py-1 text-xs text-zinc-400">
        <span>{language ?? 'text'}</span>
        <span className="flex-1" />
        <OpenAsArtifact language={language} code={code} className="rounded px-1.5 py-0.5 hover:bg-white/10 hover:text-white" />
        <button type="button" onClick={() => void copy()} className="rounded px-1.5 py-0.5 hover:bg-white/10 hover:text-white" data-testid="copy-code">
          {copied ? t('chat.copied') : t('chat.copy')}
        </button>
      </div>
      <pre className="overflow-x-auto p-3 text-[13px] leading-snug text-zinc-100">
        <code className={className}>{children}</code>
      </pre>
    </div>
  )
}
