import type { CoreContext } from '../context'
import type { InitStep } from '../services/init-service'
import { chatToolsHook } from './chat-tools'
import { ToolService } from './tool-service'

/**
 * Builds the tool service after chat's step. It connects nothing: servers start on first use
 * (or when Settings → Tools asks), so start-up never waits for them.
 */
export function toolsInitStep(context: CoreContext): InitStep {
  return {
    phase: 'migrating',
    run() {
      const store = context.store
      const secrets = context.secrets
      if (!store || !secrets || !context.chat) throw new Error('The local data could not be opened, so tools cannot start.')
      const openExternal = context.openExternal
      const tools = new ToolService(store.settings, secrets, openExternal ? { openExternal } : {})
      context.tools = tools
      context.chat.useTools(chatToolsHook(tools))
    }
  }
}
