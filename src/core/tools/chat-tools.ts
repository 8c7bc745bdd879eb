import type { ToolStreamEvent } from '../../shared/tools/types'
import type { ToolCall } from '../../shared/stream/events'
import { runToolStep, type ToolStepContext, type ToolStepOutcome } from './tool-loop'
import type { OfferedTool, ToolService } from './tool-service'

/** What the chat service needs from tools: the set for a reply, and one step of calls. */
export interface ChatToolsHook {
  /** The tools an agent may use (connecting its servers lazily, in parallel); undefined when none. */
  prepare(agentId: string): Promise<{ offered: OfferedTool[]; stepLimit: number } | undefined>
  step(offered: readonly OfferedTool[], calls: readonly ToolCall[], ctx: ToolStepContext): AsyncGenerator<ToolStreamEvent, ToolStepOutcome>
}

export function chatToolsHook(service: ToolService): ChatToolsHook {
  return {
    async prepare(agentId) {
      const choice = service.agentTools(agentId)
      if (!choice.servers.length && !choice.builtins.length) return undefined
      const offered = await service.toolsFor(choice)
      return offered.length ? { offered, stepLimit: service.toolSettings().stepLimit } : undefined
    },
    step: (offered, calls, ctx) => runToolStep(service, offered, calls, ctx)
  }
}
