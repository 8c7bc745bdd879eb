import type { Feature, ProceduresOf } from '../feature'
import type { Store } from '../store'
import type { Secrets } from '../secrets'
import type { ProviderService } from '../providers/provider-service'
import type { ModelCaller } from '../caller/model-caller'
import { ToolService } from './tool-service'
import { toolHandlers } from './handlers'

interface Deps {
  env: { openExternal?: ((url: string) => void) | undefined }
  store: Store
  secrets: Secrets
  providers: ProviderService
  caller: ModelCaller
}

/** Tool servers (MCP), the built-in tools and their approvals. */
export const toolsFeature: Feature<Deps, { tools: ToolService }, ProceduresOf<'tools'>> = {
  // It connects nothing: servers start on first use (or when Settings → Tools asks), so start-up never waits for them.
  create: ({ env, store, secrets, providers, caller }) => ({
    tools: new ToolService(store.settings, secrets, {
      ...(env.openExternal ? { openExternal: env.openExternal } : {}),
      // A server's sampling request is a model call like any other: the one caller, priced and logged.
      sample: async ({ model, messages, maxTokens, temperature, stop, conversationId, messageId, signal }) => {
        const answer = await caller.text({
          target: model,
          scene: 'Conversation',
          mode: 'Tool Calling',
          messages,
          params: { max_tokens: maxTokens, ...(temperature !== undefined ? { temperature } : {}), ...(stop ? { stop } : {}) },
          ...(conversationId ? { conversationId } : {}),
          ...(messageId ? { messageId } : {}),
          signal,
          clean: false
        })
        return { text: answer.text, model: answer.model }
      },
      models: async (providerId) => (await providers.models(providerId)).filter((m) => m.enabled).map((m) => ({ providerId, modelId: m.id }))
    })
  }),
  handlers: (use, env) => toolHandlers(use('tools', 'Tools'), env),
  // Tool servers (stdio children) stop after the streams that may be calling them.
  close: ({ tools }) => tools.close(),
  afterStreams: true
}
