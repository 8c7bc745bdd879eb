import type { Contract } from '../../../shared/bridge/contract'
import { AppErrorException } from '../../../shared/errors/app-error'
import type { CoreContext } from '../../context'
import type { ToolService } from '../../tools/tool-service'
import type { Implementation } from '../router'

type ToolHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `tools.${string}`>>

/** Settings → Tools and the approval cards. */
export function toolHandlers(ctx: CoreContext): ToolHandlers {
  const tools = (): ToolService =>
    ctx.tools ?? (() => { throw new AppErrorException({ errorType: 'AgentRuntimeError', status: 503, message: 'Switchboard is still starting; try again in a moment.' }) })()
  return {
    'tools.servers': () => tools().statuses(),
    'tools.addServer': (input) => tools().addServer(input),
    'tools.updateServer': ({ id, server }) => tools().updateServer(id, server),
    'tools.removeServer': ({ id }) => tools().removeServer(id),
    'tools.setEnabled': ({ id, enabled }) => tools().setEnabled(id, enabled),
    'tools.connect': ({ ids }) => tools().connect(ids),
    'tools.restart': ({ id }) => tools().restart(id),
    'tools.import': ({ json }) => tools().importServers(json),
    'tools.settings': () => tools().toolSettings(),
    'tools.updateSettings': (patch) => {
      const current = tools().toolSettings()
      return tools().updateToolSettings({
        ...(patch.stepLimit !== undefined ? { stepLimit: patch.stepLimit } : {}),
        ...(patch.search ? { search: { ...current.search, ...patch.search } } : {}),
        ...(patch.allowPrivateAddresses !== undefined ? { allowPrivateAddresses: patch.allowPrivateAddresses } : {})
      })
    },
    'tools.setApproval': ({ serverId, tool, mode }) => tools().setApproval(serverId, tool, mode),
    'tools.setAgentTools': ({ agentId, servers, builtins }) => tools().setAgentTools(agentId, { servers, builtins }),
    'tools.answer': ({ messageId, callId, decision }) => tools().answer(messageId, callId, decision),
    'tools.pending': () => tools().pendingApprovals()
  }
}
