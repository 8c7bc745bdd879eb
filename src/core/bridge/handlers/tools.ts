import type { Contract } from '../../../shared/bridge/contract'
import { AppErrorException } from '../../../shared/errors/app-error'
import type { CoreContext } from '../../context'
import { needs } from '../../services-access'
import { parseMcpServersJson } from '../../tools/import-mcp-servers'
import type { Implementation } from '../router'

type ToolHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `tools.${string}`>>

/** Settings → Tools and the approval cards. */
export function toolHandlers(ctx: CoreContext): ToolHandlers {
  const tools = needs(ctx, 'tools', 'Tools')
  // A stdio server is a program the core starts on this machine. Someone who reaches browser
  // mode over the network with the access password must not get to run programs here, so
  // there only remote (http/sse) servers can be added; the desktop app and loopback mode can.
  const exposed = () => ctx.mode === 'browser' && Boolean(ctx.access?.password)
  const refuseStdio = (servers: readonly { transport?: string }[]) => {
    if (exposed() && servers.some((s) => s.transport === 'stdio'))
      throw new AppErrorException({
        errorType: 'ValidationError',
        status: 403,
        message: 'With an access password, browser mode does not start programs on the host: add an HTTP server here, or add this one from the desktop app or a loopback browser session.'
      })
  }
  return {
    'tools.servers': () => tools().statuses(),
    'tools.addServer': (input) => {
      refuseStdio([input])
      return tools().addServer(input)
    },
    'tools.updateServer': ({ id, server }) => {
      refuseStdio([server])
      return tools().updateServer(id, server)
    },
    'tools.removeServer': ({ id }) => tools().removeServer(id),
    'tools.setEnabled': ({ id, enabled }) => tools().setEnabled(id, enabled),
    'tools.connect': ({ ids }) => tools().connect(ids),
    'tools.restart': ({ id }) => tools().restart(id),
    'tools.import': ({ json }) => {
      if (exposed()) refuseStdio(parseMcpServersJson(json))
      return tools().importServers(json)
    },
    'tools.settings': () => tools().toolSettings(),
    'tools.updateSettings': (patch) => {
      const current = tools().toolSettings()
      return tools().updateToolSettings({
        ...(patch.stepLimit !== undefined ? { stepLimit: patch.stepLimit } : {}),
        ...(patch.search ? { search: { ...current.search, ...patch.search } } : {}),
        ...(patch.allowPrivateAddresses !== undefined ? { allowPrivateAddresses: patch.allowPrivateAddresses } : {})
      })
    },
    'tools.setSearchKey': ({ provider, apiKey }) => tools().setSearchKey(provider, apiKey),
    'tools.setApproval': ({ serverId, tool, mode }) => tools().setApproval(serverId, tool, mode),
    'tools.setAgentTools': ({ agentId, servers, builtins }) => tools().setAgentTools(agentId, { servers, builtins }),
    'tools.answer': ({ messageId, callId, decision }) => tools().answer(messageId, callId, decision),
    'tools.pending': () => tools().pendingApprovals()
  }
}
