import type { MessageToolChoice, ToolStreamEvent } from '../../shared/tools/types'
import type { ToolCall } from '../../shared/stream/events'
import { runToolStep, type ToolStepContext, type ToolStepOutcome } from './tool-loop'
import type { OfferedTool, ToolService } from './tool-service'

/** What the chat service needs from tools: the set for a reply, and one step of calls. */
export interface ChatToolsHook {
  /**
   * The tools an agent may use (connecting its servers lazily, in parallel); undefined when none.
   * `search`: the chat's search toggle goes to the app's `web_search`, offered even
   * when the agent has no tools, and approved by the toggle itself.
   */
  prepare(agentId: string, options?: { search?: boolean; only?: MessageToolChoice }): Promise<{ offered: OfferedTool[]; stepLimit: number } | undefined>
  /** Whether the app's web search is set up (a SearXNG address, or the provider's key) and not refused. */
  searchAvailable(): Promise<boolean>
  step(offered: readonly OfferedTool[], calls: readonly ToolCall[], ctx: ToolStepContext): AsyncGenerator<ToolStreamEvent, ToolStepOutcome>
}

export function chatToolsHook(service: ToolService): ChatToolsHook {
  return {
    async prepare(agentId, options = {}) {
      const choice = service.agentTools(agentId)
      if ((options.only?.off || (!choice.servers.length && !choice.builtins.length)) && !options.search) return undefined
      const offered = await service.toolsFor(choice, options)
      return offered.length ? { offered, stepLimit: service.toolSettings().stepLimit } : undefined
    },
    searchAvailable: () => service.searchAvailable(),
    step: (offered, calls, ctx) => runToolStep(service, offered, calls, ctx)
  }
}
