import type { Contract } from '../../shared/bridge/contract'
import { clientReach, refuseHostPaths, refuseProgramServers, refuseWideningToolSettings, type CallerEnv } from '../security/client-policy'
import type { ToolService } from './tool-service'
import { parseMcpServersJson } from './import-mcp-servers'
import type { Implementation } from '../bridge/router'

type ToolHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `tools.${string}`>>

/** Settings → Tools and the approval cards. */
export function toolHandlers(tools: () => ToolService, ctx: CallerEnv): ToolHandlers {
  // What a client may make the host run or reach is decided in one place (client-policy.ts).
  const refuseStdio = (servers: readonly { transport?: string }[]) => refuseProgramServers(ctx, servers)
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
    'tools.setEnabled': ({ id, enabled }) => {
      // Switching a stdio server on starts its program: the owner's choice, like adding one.
      if (enabled) refuseStdio(tools().configs().filter((c) => c.id === id && !c.enabled))
      return tools().setEnabled(id, enabled)
    },
    'tools.connect': ({ ids }) => tools().connect(ids),
    'tools.restart': ({ id }) => tools().restart(id),
    'tools.import': ({ json }) => {
      if (clientReach(ctx) === 'remote') refuseStdio(parseMcpServersJson(json))
      return tools().importServers(json)
    },
    'tools.settings': () => tools().toolSettings(),
    'tools.updateSettings': (patch) => {
      refuseWideningToolSettings(ctx, patch)
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
    'tools.pending': () => tools().pendingApprovals(),
    'tools.answerElicitation': ({ messageId, callId, action, content }) => tools().answerElicitation(messageId, callId, { action, ...(content ? { content } : {}) }),
    'tools.pendingElicitations': () => tools().pendingElicitations(),
    'tools.setRoots': ({ id, roots }) => {
      // Roots let a server read (and often write) host folders: like any host path, the owner's choice.
      refuseHostPaths(ctx)
      return tools().setRoots(id, roots)
    }
  }
}
