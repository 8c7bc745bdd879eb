import { create } from 'zustand'
import type { ToolServerInput, ToolServerStatus, ToolSettings } from '../../../shared/tools/types'
import type { AppError, Result } from '../../../shared/errors/app-error'
import { bridge } from '../../stores/app-store'

interface ToolsState {
  servers: ToolServerStatus[]
  settings?: ToolSettings
  error?: AppError
}

export const useTools = create<ToolsState>()(() => ({ servers: [] }))

const upsert = (status: ToolServerStatus) => useTools.setState((s) => ({ servers: s.servers.some((x) => x.id === status.id) ? s.servers.map((x) => (x.id === status.id ? status : x)) : [...s.servers, status] }))

function note<T>(result: Result<T>): T | undefined {
  if (result.ok) {
    useTools.setState({ error: undefined })
    return result.value
  }
  useTools.setState({ error: result.error })
  return undefined
}

export const toolsActions = {
  async load() {
    const [servers, settings] = await Promise.all([bridge().call('tools.servers', {}), bridge().call('tools.settings', {})])
    if (servers.ok) useTools.setState({ servers: servers.value })
    if (settings.ok) useTools.setState({ settings: settings.value })
  },
  async refresh() {
    const servers = await bridge().call('tools.servers', {})
    if (servers.ok) useTools.setState({ servers: servers.value })
  },
  async add(input: ToolServerInput) {
    const status = note(await bridge().call('tools.addServer', input))
    if (status) {
      upsert(status)
      // Connect once so the user sees at once whether it works (and its tools).
      void toolsActions.connect([status.id])
    }
    return status
  },
  async update(id: string, input: ToolServerInput) {
    const status = note(await bridge().call('tools.updateServer', { id, server: input }))
    if (status) upsert(status)
    return status
  },
  async remove(id: string) {
    if (note(await bridge().call('tools.removeServer', { id }))) useTools.setState((s) => ({ servers: s.servers.filter((x) => x.id !== id) }))
  },
  async setEnabled(id: string, enabled: boolean) {
    const status = note(await bridge().call('tools.setEnabled', { id, enabled }))
    if (status) upsert(status)
  },
  async connect(ids: string[]) {
    const statuses = note(await bridge().call('tools.connect', { ids }))
    statuses?.forEach(upsert)
  },
  /** The folders a server may use (MCP roots); refused for a remote browser-mode client (host paths). */
  async setRoots(id: string, roots: string[]) {
    const status = note(await bridge().call('tools.setRoots', { id, roots }))
    if (status) upsert(status)
    return status
  },
  async restart(id: string) {
    const status = note(await bridge().call('tools.restart', { id }))
    if (status) upsert(status)
  },
  async importJson(json: string) {
    const added = note(await bridge().call('tools.import', { json }))
    if (added) {
      added.forEach(upsert)
      void toolsActions.connect(added.filter((s) => s.enabled).map((s) => s.id))
    }
    return added
  },
  async updateSettings(patch: Parameters<ReturnType<typeof bridge>['call']>[1] & object) {
    const settings = note(await bridge().call('tools.updateSettings', patch as never))
    if (settings) useTools.setState({ settings })
  },
  async setApproval(serverId: string, tool: string, mode: 'ask' | 'allow' | 'never') {
    const settings = note(await bridge().call('tools.setApproval', { serverId, tool, mode }))
    if (settings) useTools.setState({ settings })
  },
  async setAgentTools(agentId: string, servers: string[], builtins: ('web_search' | 'read_web_page')[]) {
    // Shown at once (a checkbox must not wait for the core); the core's answer replaces it.
    useTools.setState((s) => (s.settings ? { settings: { ...s.settings, agents: { ...s.settings.agents, [agentId]: { servers, builtins } } } } : {}))
    const settings = note(await bridge().call('tools.setAgentTools', { agentId, servers, builtins }))
    if (settings) useTools.setState({ settings })
    return settings
  }
}

/** `KEY=value` lines → a record (env vars, headers). */
export function parsePairs(text: string, separator: '=' | ':'): Record<string, string> {
  const out: Record<string, string> = {}
  for (const line of text.split('\n')) {
    const at = line.indexOf(separator)
    if (at <= 0) continue
    out[line.slice(0, at).trim()] = line.slice(at + 1).trim()
  }
  return out
}

/** A command line split into words, quotes respected. */
export function splitCommand(text: string): string[] {
  return text.match(/"[^"]*"|'[^']*'|\S+/g)?.map((w) => w.replace(/^["']|["']$/g, '')) ?? []
}
