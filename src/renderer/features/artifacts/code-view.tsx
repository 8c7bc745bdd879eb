import { useMemo } from 'react'
import hljs from 'highlight.js/lib/common'
import 'highlight.js/styles/github-dark.css'
import type { ArtifactType } from '../../../shared/artifacts/artifact-tag'

const LANGUAGE: Partial<Record<ArtifactType, string>> = { html: 'xml', svg: 'xml', react: 'javascript', python: 'python' }

/** The artifact's source, highlighted by the highlighter the chat uses (highlight.js escapes what it is given). */
export function CodeView({ type, language, content }: { type: ArtifactType; language?: string; content: string }) {
  const html = useMemo(() => {
    const lang = LANGUAGE[type] ?? language?.toLowerCase()
    try {
      return lang && hljs.getLanguage(lang) ? hljs.highlight(content, { language: lang, ignoreIllegals: true }).value : hljs.highlightAuto(content.slice(0, 200_000)).value
    } catch {
      return undefined
    }
  }, [type, language, content])
  return (
    <pre className="hljs h-full overflow-auto p-3 text-[13px] leading-snug" data-testid="artifact-code">
      {html === undefined ? <code>{content}</code> : <code dangerouslySetInnerHTML={{ __html: html }} />}
    </pre>
  )
}
