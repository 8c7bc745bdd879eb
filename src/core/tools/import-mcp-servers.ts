import type { ToolServerInput } from '../../shared/tools/types'
import { pluginException } from './tool-errors'

/**
 * Reads the widely used `mcpServers` JSON (Claude Desktop, Cursor, VS Code's `servers`):
 * `{ "mcpServers": { "<name>": { "command", "args", "env" } | { "url", "headers", "type" } } }`.
 * Returns one input per server; env values and headers go to the keychain later.
 */
export function parseMcpServersJson(text: string): ToolServerInput[] {
  if (text.length > 1_000_000) throw pluginException('PluginManifestInvalid', 'The server list is larger than 1 MB.')
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw pluginException('PluginManifestInvalid', `This is not JSON: ${(error as Error).message}`)
  }
  const root = parsed as Record<string, unknown> | null
  const servers = (root && typeof root === 'object' && (root['mcpServers'] ?? root['servers'])) as Record<string, unknown> | undefined
  if (!servers || typeof servers !== 'object' || Array.isArray(servers)) throw pluginException('PluginManifestInvalid', 'Expected an object with "mcpServers": { "<name>": { "command": … } }.')
  const out: ToolServerInput[] = []
  for (const [name, raw] of Object.entries(servers)) {
    if (!raw || typeof raw !== 'object') throw pluginException('PluginManifestInvalid', `Server ${JSON.stringify(name)} is not an object.`)
    const s = raw as Record<string, unknown>
    const strings = (v: unknown, what: string): string[] | undefined => {
      if (v === undefined) return undefined
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw pluginException('PluginManifestInvalid', `Server ${JSON.stringify(name)}: ${what} must be a list of strings.`)
      return v as string[]
    }
    const record = (v: unknown, what: string): Record<string, string> | undefined => {
      if (v === undefined) return undefined
      if (!v || typeof v !== 'object' || Array.isArray(v) || !Object.values(v).every((x) => typeof x === 'string'))
        throw pluginException('PluginManifestInvalid', `Server ${JSON.stringify(name)}: ${what} must map names to strings.`)
      return v as Record<string, string>
    }
    const base = { name: name.slice(0, 100), enabled: s['disabled'] !== true }
    if (typeof s['command'] === 'string') {
      const args = strings(s['args'], 'args')
      const env = record(s['env'], 'env')
      out.push({ ...base, transport: 'stdio', command: s['command'], ...(args ? { args } : {}), ...(env ? { env } : {}), ...(typeof s['cwd'] === 'string' ? { cwd: s['cwd'] } : {}) })
    } else if (typeof s['url'] === 'string' || typeof s['serverUrl'] === 'string') {
      const type = String(s['type'] ?? s['transport'] ?? '').toLowerCase()
      const headers = record(s['headers'], 'headers')
      out.push({ ...base, transport: type === 'sse' ? 'sse' : 'http', url: String(s['url'] ?? s['serverUrl']), ...(headers ? { headers } : {}) })
    } else {
      throw pluginException('PluginManifestInvalid', `Server ${JSON.stringify(name)} has neither "command" nor "url".`)
    }
  }
  return out
}
