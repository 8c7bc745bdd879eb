import { useEffect, useId, useState } from 'react'
import { sanitizeSvg } from './sanitize-svg'

/** Mermaid diagrams, loaded only when one appears, in strict mode (no scripts, no HTML labels). */
export default function MermaidBlock({ source }: { source: string }) {
  const id = `mermaid-${useId().replace(/[^a-zA-Z0-9]/g, '')}`
  const [svg, setSvg] = useState<string>()
  const [error, setError] = useState<string>()
  useEffect(() => {
    let cancelled = false
    void import('mermaid').then(async ({ default: mermaid }) => {
      mermaid.initialize({ startOnLoad: false, securityLevel: 'strict', theme: document.documentElement.classList.contains('dark') ? 'dark' : 'default' })
      try {
        const { svg } = await mermaid.render(id, source)
        if (!cancelled) setSvg(sanitizeSvg(svg))
      } catch (e) {
        if (!cancelled) setError(e instanceof Error ? e.message : String(e))
      }
    })
    return () => {
      cancelled = true
    }
  }, [id, source])
  if (error) return <pre className="rounded-lg bg-zinc-900 p-3 text-xs text-red-300">{source}</pre>
  if (!svg) return <pre className="rounded-lg bg-zinc-900 p-3 text-xs text-zinc-100">{source}</pre>
  // Mermaid's strict mode sanitises the SVG it returns (DOMPurify inside mermaid), and
  // sanitizeSvg takes out what that keeps (images in HTML labels, links).
  return <div className="overflow-x-auto rounded-lg bg-white p-3 dark:bg-zinc-900" dangerouslySetInnerHTML={{ __html: svg }} />
}
