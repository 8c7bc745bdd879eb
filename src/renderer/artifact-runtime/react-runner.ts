import * as React from 'react'
import * as ReactDOM from 'react-dom'
import * as ReactDOMClient from 'react-dom/client'
import * as JsxRuntime from 'react/jsx-runtime'
import { transform } from 'sucrase'

/**
 * A React artifact: one component in JSX/TSX, compiled here with sucrase and run against the
 * React of this bundle. Only the libraries below can be imported; everything is local (offline).
 */
const ALLOWED: Record<string, unknown> = { react: React, 'react-dom': ReactDOM, 'react-dom/client': ReactDOMClient, 'react/jsx-runtime': JsxRuntime }

class Boundary extends React.Component<{ onError(message: string): void; children?: React.ReactNode }, { failed?: string }> {
  override state: { failed?: string } = {}
  static getDerivedStateFromError(error: unknown) {
    return { failed: error instanceof Error ? error.message : String(error) }
  }
  override componentDidCatch(error: unknown) {
    this.props.onError(error instanceof Error ? `${error.name}: ${error.message}` : String(error))
  }
  override render() {
    return this.state.failed ? React.createElement('pre', { style: { color: '#b91c1c', whiteSpace: 'pre-wrap' } }, this.state.failed) : this.props.children
  }
}

export function renderReact(source: string, onError: (message: string) => void) {
  const { code } = transform(source, { transforms: ['jsx', 'typescript', 'imports'], jsxRuntime: 'classic', production: true })
  const module = { exports: {} as Record<string, unknown> }
  const require = (name: string) => {
    if (name in ALLOWED) return ALLOWED[name]
    throw new Error(`"${name}" is not available here: artifacts run offline and can import only ${Object.keys(ALLOWED).join(', ')}.`)
  }
  new Function('require', 'module', 'exports', 'React', code)(require, module, module.exports, React)
  const exported = module.exports
  const candidate = exported['default'] ?? Object.values(exported).find((v) => typeof v === 'function')
  if (typeof candidate !== 'function' && typeof candidate !== 'object') throw new Error('The artifact exports no component (write `export default function App() { … }`).')
  const host = document.createElement('div')
  host.id = 'root'
  document.body.replaceChildren(host)
  ReactDOMClient.createRoot(host).render(React.createElement(Boundary, { onError }, React.createElement(candidate as React.ComponentType)))
}
