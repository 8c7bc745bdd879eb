import { Readability } from '@mozilla/readability'
import { parseHTML } from 'linkedom'
import TurndownService from 'turndown'
import { pluginException } from '../tool-errors'
import { safeFetch } from './fetch-policy'
import type { Resolve } from './address-policy'

/** Pages larger than this are refused (before parsing). */
export const MAX_PAGE_BYTES = 5 * 1024 * 1024
/** The markdown the model reads is cut here (noted at the end). */
export const MAX_MARKDOWN_CHARS = 60_000

export const readWebPageSchema = {
  type: 'object',
  properties: { url: { type: 'string', description: 'The http(s) address of the page to read.' } },
  required: ['url']
} as const

/** fetch → readable article (Readability over linkedom's DOM) → markdown (turndown), capped. */
export async function readWebPage(
  args: Record<string, unknown>,
  options: { allowPrivate: boolean; signal?: AbortSignal; fetch?: typeof fetch; resolve?: Resolve }
): Promise<{ title: string; url: string; markdown: string }> {
  const raw = args['url']
  if (typeof raw !== 'string') throw pluginException('PluginApiParamsError', 'read_web_page needs a "url" string.')
  const page = await safeFetch(raw, { allowPrivate: options.allowPrivate, maxBytes: MAX_PAGE_BYTES, ...(options.signal ? { signal: options.signal } : {}), ...(options.fetch ? { fetch: options.fetch } : {}), ...(options.resolve ? { resolve: options.resolve } : {}) })
  if (page.status >= 400) throw pluginException('PluginServerError', `${page.url.host} answered ${page.status}.`)
  if (!/html|xml|text\/plain|^$/.test(page.contentType)) throw pluginException('PluginServerError', `${page.url.host} sent ${page.contentType}, not a web page.`)
  let title = page.url.toString()
  let markdown: string
  if (page.contentType.includes('text/plain')) markdown = page.body
  else {
    const { document } = parseHTML(page.body)
    const article = new Readability(document as unknown as Document).parse()
    title = article?.title || document.title || title
    const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' })
    turndown.remove(['script', 'style', 'noscript'])
    markdown = turndown.turndown(article?.content ?? document.body?.innerHTML ?? '')
  }
  if (markdown.length > MAX_MARKDOWN_CHARS) markdown = `${markdown.slice(0, MAX_MARKDOWN_CHARS)}\n\n[… cut at ${MAX_MARKDOWN_CHARS.toLocaleString('en')} characters]`
  return { title, url: page.url.toString(), markdown }
}
