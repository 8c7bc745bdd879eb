/**
 * A second pass over mermaid's SVG before it enters the page. Mermaid's strict mode runs
 * DOMPurify with its defaults, which keep `<img src=…>` in HTML labels: a diagram from a
 * model could make the page fetch any address (only the CSP stopped it). Here nothing that
 * loads, links or runs survives: no img/image/media/frames/scripts/foreign documents, no
 * event handlers, no href/src other than a same-document `#fragment`, no url() in styles
 * except `url(#…)`.
 */
const DROP = new Set(['img', 'image', 'script', 'iframe', 'frame', 'object', 'embed', 'audio', 'video', 'source', 'track', 'link', 'meta', 'base', 'form', 'input', 'button', 'textarea', 'animate', 'set', 'animatemotion', 'animatetransform', 'feimage', 'picture', 'portal'])
/** Kept for their content, without the element: a diagram's links (mermaid `click … href`). */
const UNWRAP = new Set(['a'])
const URL_ATTRIBUTES = new Set(['href', 'xlink:href', 'src', 'srcset', 'action', 'formaction', 'poster', 'background', 'ping', 'data'])
const EXTERNAL_URL_IN_STYLE = /url\(\s*(?!['"]?#)|@import|expression\(/i

export function sanitizeSvg(svg: string): string {
  // A <template>'s content is inert: parsing it loads nothing and runs nothing.
  const template = document.createElement('template')
  template.innerHTML = svg
  const walker = document.createTreeWalker(template.content, NodeFilter.SHOW_ELEMENT)
  const remove: Element[] = []
  const unwrap: Element[] = []
  for (let node = walker.nextNode() as Element | null; node; node = walker.nextNode() as Element | null) {
    if (DROP.has(node.localName.toLowerCase())) {
      remove.push(node)
      continue
    }
    if (UNWRAP.has(node.localName.toLowerCase())) unwrap.push(node)
    for (const attribute of [...node.attributes]) {
      const name = attribute.name.toLowerCase()
      const value = attribute.value.trim()
      if (name.startsWith('on')) node.removeAttribute(attribute.name)
      else if (URL_ATTRIBUTES.has(name) && !value.startsWith('#')) node.removeAttribute(attribute.name)
      else if (name === 'style' && EXTERNAL_URL_IN_STYLE.test(value)) node.removeAttribute(attribute.name)
    }
    if (node.localName === 'style' && EXTERNAL_URL_IN_STYLE.test(node.textContent ?? '')) node.textContent = (node.textContent ?? '').replace(/@import[^;]*;?/gi, '').replace(/url\(\s*(?!['"]?#)[^)]*\)/gi, 'none')
  }
  for (const node of remove) node.remove()
  for (const node of unwrap) node.replaceWith(...node.childNodes)
  return template.innerHTML
}
