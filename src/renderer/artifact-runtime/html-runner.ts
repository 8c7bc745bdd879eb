/**
 * Puts an HTML artifact into this document. Scripts parsed by DOMParser do not run, so each is
 * re-created in order (external ones waited for), and DOMContentLoaded/load are dispatched again
 * for the artifact's own listeners. The runtime's listeners stay on `window`.
 */
export function renderHtml(html: string) {
  const parsed = new DOMParser().parseFromString(html, 'text/html')
  document.documentElement.replaceChildren(...Array.from(parsed.documentElement.childNodes).map((n) => document.importNode(n, true)))
  for (const attr of Array.from(parsed.documentElement.attributes)) document.documentElement.setAttribute(attr.name, attr.value)
  const scripts = Array.from(document.querySelectorAll('script'))
  void (async () => {
    for (const old of scripts) {
      const script = document.createElement('script')
      for (const attr of Array.from(old.attributes)) script.setAttribute(attr.name, attr.value)
      script.textContent = old.textContent
      const loaded = old.src
        ? new Promise<void>((resolve) => {
            script.addEventListener('load', () => resolve())
            script.addEventListener('error', () => resolve())
          })
        : undefined
      old.replaceWith(script)
      if (loaded) await loaded
    }
    document.dispatchEvent(new Event('DOMContentLoaded', { bubbles: true }))
    window.dispatchEvent(new Event('load'))
  })()
}
