import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { ToolResultPart } from '../../shared/tools/types'
import { pluginException } from './tool-errors'

/** Text the model may read back from one call; more is an error the model is told about. */
export const MAX_RESULT_CHARS = 1_000_000
/** An image part over this is dropped (noted in the text). */
const MAX_IMAGE_BASE64 = 8_000_000

/** An MCP result as parts (shown structured) and as the text the model reads. */
export function convertResult(result: CallToolResult, where: string): { parts: ToolResultPart[]; text: string; isError: boolean } {
  const parts: ToolResultPart[] = []
  const texts: string[] = []
  let size = 0
  const add = (text: string) => {
    size += text.length
    if (size > MAX_RESULT_CHARS)
      throw pluginException('PluginServerError', `${where} returned more than ${MAX_RESULT_CHARS / 1_000_000} MB of text; the result was not sent to the model.`)
    texts.push(text)
  }
  for (const item of Array.isArray(result.content) ? result.content : []) {
    if (item.type === 'text') {
      add(item.text)
      parts.push({ type: 'text', text: item.text })
    } else if (item.type === 'image' || item.type === 'audio') {
      if (item.type === 'image' && item.data.length <= MAX_IMAGE_BASE64) parts.push({ type: 'image', mimeType: item.mimeType, data: item.data })
      add(`[${item.type} ${item.mimeType}, ${Math.round((item.data.length * 3) / 4 / 1024)} KB]`)
    } else if (item.type === 'resource') {
      const r = item.resource
      const text = 'text' in r && typeof r.text === 'string' ? r.text : undefined
      parts.push({ type: 'resource', uri: r.uri, ...(r.mimeType ? { mimeType: r.mimeType } : {}), ...(text !== undefined ? { text } : {}) })
      add(text !== undefined ? `<resource uri=${JSON.stringify(r.uri)}>\n${text}\n</resource>` : `[resource ${r.uri}]`)
    } else if (item.type === 'resource_link') {
      parts.push({ type: 'resource', uri: item.uri, ...(item.mimeType ? { mimeType: item.mimeType } : {}) })
      add(`[resource ${item.uri}${item.name ? ` ${item.name}` : ''}]`)
    }
  }
  if (result.structuredContent !== undefined && texts.length === 0) {
    const json = JSON.stringify(result.structuredContent, null, 2)
    add(json)
    parts.push({ type: 'text', text: json })
  }
  return { parts, text: texts.join('\n'), isError: result.isError === true }
}
