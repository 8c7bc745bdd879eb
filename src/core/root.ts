import type { StreamHub } from './bridge/stream-hub'
import type { LocalFeature } from './local'
import { readAppSettings } from '../shared/data/app-settings'
import type { JsonObject } from '../shared/data/json'
import type { Store } from './store'
import type { Secrets } from './secrets'
import { logger } from './log/logger'
import { ProviderService } from './services/provider-service'
import { AttachmentService } from './services/attachment-service'
import { EmbeddingService } from './services/embedding-service'
import { SpeechService } from './services/speech-service'
import { ImageService } from './services/image-service'
import { ToolService } from './tools/tool-service'
import { chatToolsHook } from './tools/chat-tools'
import { readWebPage } from './tools/builtin/read-web-page'
import { KnowledgeRepository } from './store/repositories/knowledge'
import { KnowledgeEvalsRepository } from './store/repositories/knowledge-evals'
import { KnowledgeService } from './knowledge/knowledge-service'
import { EvalService } from './knowledge/eval-service'
import { replyContextHook } from './knowledge/reply-context'
import { rerankDocuments } from './knowledge/rerank'
import { ChatService } from './services/chat-service'
import { Competition } from './services/chat/competition'
import { AgentsService } from './services/agents-service'
import { DataFolderService } from './services/data-folder-service'
import { DataTransferService } from './services/data-transfer-service'
import { ModelCaller } from './services/model-caller'
import type { AccessPolicy } from './bridge/session'
import { clientReach } from './security/client-policy'
import { GatewayService } from './gateway/gateway-service'
import { createAppGatewayBackend } from './gateway/app-backend'
import { createEngineService, type BuiltinEngine, type EngineSpawner } from './engine'
import { createBuiltinRuntimeWith } from './runtime/providers/builtin/builtin-runtime'
import { runtimeError } from './runtime/runtime-error'
import { createModelsLibraryFeature, type ModelsLibraryFeature } from './models-library'
import { AppErrorException } from '../shared/errors/app-error'
import { isUnavailable, type Unavailable } from './unavailable'
import { SyncService, type SyncTuning } from './sync/sync-service'
import { openSyncStore } from './sync/stores'

/**
 * Every service of the core, built. No field is optional: the graph exists whole or not at all
 * (before the store opens, `ServiceAccess` answers not-ready). A part that may fail on its own
 * (a native engine) is typed `Service | Unavailable` here, never left undefined.
 */
export interface Services {
  store: Store
  secrets: Secrets
  providers: ProviderService
  caller: ModelCaller
  attachments: AttachmentService
  embeddings: EmbeddingService
  speech: SpeechService
  images: ImageService
  tools: ToolService
  knowledge: KnowledgeService
  knowledgeEvals: EvalService
  chat: ChatService
  competition: Competition
  agents: AgentsService
  dataFolder: DataFolderService
  dataTransfer: DataTransferService
  gateway: GatewayService
  sync: SyncService
  /** The built-in engine (llama.cpp in its own process); unavailable when its process cannot start. */
  engine: BuiltinEngine | Unavailable
  /** Finding, fitting and downloading models. */
  modelsLibrary: ModelsLibraryFeature
}

/** The services that need no store: built before start-up, so they answer in every start-up state. */
export type StandingServices = Pick<Services, 'engine' | 'modelsLibrary'>

/** How the engine process starts: the desktop gives an Electron utilityProcess spawner; tests a host entry. */
export interface EngineOptions {
  spawner?: EngineSpawner
  hostEntry?: string
}

/** Builds the services that need no store. `secrets` is read at each use: the keychain opens later, in start-up. */
export function buildStandingServices(input: { dataDir: string; engine?: EngineOptions | undefined; secrets: () => Secrets | undefined }): StandingServices {
  const { dataDir } = input
  return {
    engine: createEngineService({ dataDir, ...input.engine }),
    modelsLibrary: createModelsLibraryFeature({ dataDir, secrets: input.secrets })
  }
}

/** Closes what `buildStandingServices` built (the engine process stops; downloads are left resumable). */
export async function closeStandingServices(standing: StandingServices): Promise<void> {
  await standing.modelsLibrary.close()
  if (!isUnavailable(standing.engine)) await standing.engine.close()
}

/** What the root is given: the environment, the opened store and keychain, and the hub. */
export interface RootInput {
  env: { version: string; mode: 'desktop' | 'browser' | 'test'; dataDir: string; local: LocalFeature; access?: AccessPolicy | undefined; localApi?: { host?: string; port?: number; serve?: boolean } | undefined; keyEnv?: NodeJS.ProcessEnv | undefined; sync?: SyncTuning | undefined; openExternal?: ((url: string) => void) | undefined }
  store: Store
  secrets: Secrets
  hub: StreamHub
  standing: StandingServices
}

/**
 * The composition root: the one place that knows the whole graph. Each service gets what it
 * needs in its constructor, built in dependency order; adding a feature is one line here
 * (and its handlers in index.ts).
 */
export function buildServices({ env, store, secrets, hub, standing }: RootInput): Services {
  const { dataDir } = env
  const { engine } = standing
  // "Local (built-in)" runs on this root's engine; an unavailable one answers every request with its reason.
  const builtinRuntime = createBuiltinRuntimeWith(() => {
    if (isUnavailable(engine)) throw new AppErrorException(runtimeError('ProviderServiceUnavailable', `The built-in engine is not available: ${engine.reason}.`, 'builtin'))
    return engine
  })
  const providers = new ProviderService(store, secrets, env.local.detection, env.keyEnv, { builtin: builtinRuntime })
  const runtimeFor = (providerId: string) => providers.runtime(providerId)
  const caller = new ModelCaller({
    runtimeFor,
    price: (providerId, modelId, usage, context) => providers.price(providerId, modelId, usage, context),
    logUsage: (entry) => {
      try {
        store.usage.add(entry as Parameters<typeof store.usage.add>[0])
      } catch (error) {
        // The usage log must never fail a reply, but a lost entry is logged.
        logger.warn('usage', 'recording a usage entry failed', error)
      }
    },
    // Each scene's model from Settings (`sceneModels`, keyed by scene name); titles also have their own setting.
    sceneModel: (scene) => {
      const app = store.settings.app()
      const chosen = app.sceneModels?.[scene]
      if (chosen) return chosen
      const title = scene === 'Summary Topic Title' ? app.titleModel : undefined
      return title ? { providerId: title.providerId, modelId: title.modelId } : undefined
    }
  })
  const attachments = new AttachmentService({ files: store.files, dataDir })
  const embeddings = new EmbeddingService({ runtimeFor })
  const speech = new SpeechService({
    runtimeFor,
    providers: () => providers.summaries(),
    models: (providerId) => providers.models(providerId),
    storedSettings: () => store.settings.app().voice,
    dataDir
  })
  const images = new ImageService({ store, dataDir, runtimeFor, tasks: hub })
  // It connects nothing: servers start on first use (or when Settings → Tools asks), so start-up never waits for them.
  const tools = new ToolService(store.settings, secrets, {
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
  const knowledge = new KnowledgeService({
    repo: new KnowledgeRepository(store.db),
    dataDir,
    embed: (providerId, modelId) => (texts, options) => embeddings.create({ providerId, modelId, input: texts }, options),
    startStream: (proc, run, task) => hub.start(proc, (signal) => run(signal), task),
    cancelStream: (id) => hub.cancel(id),
    rerankModels: {
      get: () => readAppSettings(store.settings.get()).knowledgeRerank ?? {},
      set: (next) => store.settings.set({ knowledgeRerank: Object.keys(next).length ? (next as unknown as JsonObject) : null })
    },
    // The address policy is the tools' one (Settings → Tools: private addresses off by default).
    readWebPage: (url, signal) => readWebPage({ url }, { allowPrivate: tools.toolSettings().allowPrivateAddresses, ...(signal ? { signal } : {}) }),
    rerank: async (model, query, documents, topN, signal) => rerankDocuments(await providers.credentials(model.providerId), model, query, documents, topN, signal ? { signal } : {})
  })
  const evalsRepo = new KnowledgeEvalsRepository(store.db)
  evalsRepo.repairInterrupted()
  const knowledgeEvals = new EvalService({
    evals: evalsRepo,
    knowledge,
    // The judge and the answers are model calls like any other: priced and in the usage log.
    complete: async (model, system, user, signal) =>
      (await caller.text({ target: model, scene: 'Knowledge Base Evaluation', messages: [{ role: 'system', content: system }, { role: 'user', content: user }], signal, clean: false })).text
  })
  const chat = new ChatService({
    agents: store.agents,
    conversations: store.conversations,
    messages: store.messages,
    caller,
    runtimeFor,
    modelFacts: (providerId, modelId) => providers.modelFacts(providerId, modelId),
    searchLimits: () => {
      const { searchMaxResults: maxResults, searchMaxUses: maxUses } = store.settings.app()
      return { ...(maxResults ? { maxResults } : {}), ...(maxUses ? { maxUses } : {}) }
    },
    // The settings are parsed once per change, not once per question a reply asks (store.settings.app()).
    contextLength: (providerId, modelId) => store.settings.app().contextLengths?.[`${providerId}/${modelId}`],
    tasks: hub,
    saveImage: (input) => images.saveChatImage(input),
    fileContext: (fileIds) => attachments.context(fileIds),
    knowledge: replyContextHook(knowledge),
    knowledgeAttach: {
      check: (kbIds) => kbIds.forEach((id) => knowledge.require(id)),
      attach: (conversationId, kbIds) => void knowledge.setAttached({ kind: 'conversation', id: conversationId }, kbIds)
    },
    tools: chatToolsHook(tools)
  })
  const competition = new Competition({
    chat,
    agents: store.agents,
    conversations: store.conversations,
    messages: store.messages,
    startStream: (run) => hub.start('chat.send', run)
  })
  const agents = new AgentsService({ store, dataDir, activeConversations: () => new Set(hub.tasks('chat').map((t) => t.meta.conversationId)) })
  const dataFolder = new DataFolderService({ store, dataDir, mode: env.mode })
  const dataTransfer = new DataTransferService({ store, dataDir, mode: env.mode, reach: clientReach(env), version: env.version, knowledge, folder: dataFolder, tasks: hub })
  const gateway = new GatewayService({
    settings: store.settings,
    backend: createAppGatewayBackend({ caller, providers, usage: store.usage }),
    // A remote browser-mode client may use the app, never widen what the host serves.
    mayChange: () => clientReach(env) !== 'remote',
    ...(env.localApi ? { listen: env.localApi } : {})
  })
  const { wrapStore, ...tuning } = env.sync ?? {}
  const sync = new SyncService({
    ...tuning,
    db: store.db.sqlite,
    dataDir,
    secrets,
    openStore: wrapStore ? async (config, secret) => wrapStore(await openSyncStore(config, secret)) : openSyncStore,
    // A store address or folder is a host resource, like a path: not for a remote browser-mode client.
    mayChange: () => clientReach(env) !== 'remote',
    apiKeys: { names: () => providers.keyNames(), isKey: (name) => providers.isKeyName(name) },
    // Settings are cached parsed; another device's settings must be read again.
    applied: (tables) => {
      if (tables.has('settings')) store.settings.invalidate()
    }
  })
  return { store, secrets, providers, caller, attachments, embeddings, speech, images, tools, knowledge, knowledgeEvals, chat, competition, agents, dataFolder, dataTransfer, gateway, sync, ...standing }
}

/** What start-up does once the graph exists: the default agent, and indexing a crash interrupted. */
export function startServices(services: Services): void {
  services.chat.defaultAgent()
  services.knowledge.resume()
  // Not awaited: a port in use must not hold start-up; the status says why it is not running.
  void services.gateway.apply()
  // Not awaited either: the keychain or the store may be slow; the status says what it is doing.
  void services.sync.start().catch((error: unknown) => logger.warn('sync', 'sync did not start', error))
}

/**
 * Shutdown in reverse dependency order: indexing stops, then (when the core ends) the hub's
 * streams, then every tool server (stdio children killed), then (when the core ends, not when a
 * retried start-up rebuilds the graph) the engine process and the model library; the store is
 * closed by its owner last.
 */
export async function closeServices(services: Services, options: { hub?: StreamHub; standing?: boolean } = {}): Promise<void> {
  services.knowledge.close()
  await services.sync.close()
  await services.gateway.close()
  options.hub?.close()
  await services.tools.close()
  if (options.standing) await closeStandingServices(services)
}
