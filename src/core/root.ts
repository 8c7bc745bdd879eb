import type { StreamHub } from './bridge/stream-hub'
import type { LocalFeature } from './local'
import type { Store } from './store'
import type { Secrets } from './secrets'
import { createEngineService, type BuiltinEngine, type EngineSpawner } from './engine'
import { createModelsLibraryFeature, type ModelsLibraryFeature } from './models-library'
import { isUnavailable, type Unavailable } from './unavailable'
import type { SyncTuning } from './sync/sync-service'
import { FeaturePlan, type FeatureEnv, type Use } from './feature'
import { providersFeature } from './providers/feature'
import { callerFeature } from './caller/feature'
import { attachmentsFeature } from './attachments/feature'
import { embeddingsFeature } from './embeddings/feature'
import { speechFeature } from './speech/feature'
import { imagesFeature } from './images/feature'
import { toolsFeature } from './tools/feature'
import { knowledgeFeature } from './knowledge/feature'
import { chatFeature } from './chat/feature'
import { dataFeature } from './data/feature'
import { gatewayFeature } from './gateway/feature'
import { syncFeature } from './sync/feature'

/** What the root is given about the process it runs in. */
export interface RootEnv extends FeatureEnv {
  local: LocalFeature
  localApi?: { host?: string; port?: number; serve?: boolean } | undefined
  keyEnv?: NodeJS.ProcessEnv | undefined
  sync?: SyncTuning | undefined
  openExternal?: ((url: string) => void) | undefined
}

/** What every feature is built on: the environment, the opened store and keychain, the hub, and the standing parts. */
interface RootBase {
  env: RootEnv
  hub: StreamHub
  store: Store
  secrets: Secrets
  /** The built-in engine (llama.cpp in its own process); unavailable when its process cannot start. */
  engine: BuiltinEngine | Unavailable
  /** Finding, fitting and downloading models. */
  modelsLibrary: ModelsLibraryFeature
}

/**
 * The composition root: the one place that knows the whole graph. Each feature folder exports a
 * `Feature` (feature.ts): how its services are built from those before it, its handlers, its start
 * and close. They are listed here in dependency order, one line each; the compiler refuses a line
 * placed before what it needs. Adding a feature is its folder and one line here.
 */
const plan = FeaturePlan.start<RootBase>()
  .add(providersFeature)
  .add(callerFeature)
  .add(attachmentsFeature)
  .add(embeddingsFeature)
  .add(speechFeature)
  .add(imagesFeature)
  .add(toolsFeature)
  .add(knowledgeFeature)
  .add(chatFeature)
  .add(dataFeature)
  .add(gatewayFeature)
  .add(syncFeature)

type Built = ReturnType<typeof plan.build>

/** The handlers of every procedure the features declared. */
export type FeatureHandlers = ReturnType<typeof plan.handlers>

/**
 * Every service of the core, built. No field is optional: the graph exists whole or not at all
 * (before the store opens, `ServiceAccess` answers not-ready). A part that may fail on its own
 * (a native engine) is typed `Service | Unavailable` here, never left undefined.
 */
export type Services = Omit<Built, 'env' | 'hub'>

/** The services that need no store: built before start-up, so they answer in every start-up state. */
export type StandingServices = Pick<Services, 'engine' | 'modelsLibrary'>

/** How the engine process starts: the desktop gives an Electron utilityProcess spawner; tests a host entry. */
export interface EngineOptions {
  spawner?: EngineSpawner
  hostEntry?: string
}

/** Builds the services that need no store. `secrets` is read at each use: the keychain opens later, in start-up. */
export function buildStandingServices(input: { dataDir: string; engine?: EngineOptions | undefined; hostPaths: boolean; secrets: () => Secrets | undefined }): StandingServices {
  const { dataDir } = input
  return {
    engine: createEngineService({ dataDir, ...input.engine, hostPaths: input.hostPaths }),
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
  env: RootEnv
  store: Store
  secrets: Secrets
  hub: StreamHub
  standing: StandingServices
}

/** Builds every feature's services, in the plan's order. */
export function buildServices({ env, store, secrets, hub, standing }: RootInput): Services {
  const { env: _env, hub: _hub, ...services } = plan.build({ env, hub, store, secrets, ...standing })
  return services
}

/** Every feature's handlers, each reaching its services through `use` (the core's `ServiceAccess`). */
export function featureHandlers(use: Use<Services>, env: FeatureEnv, hub: StreamHub): FeatureHandlers {
  return plan.handlers(use as Use<Built>, env, hub)
}

/** What start-up does once the graph exists (each feature's `start`, in build order). */
export function startServices(services: Services): void {
  plan.start(services as Built)
}

/**
 * Shutdown in reverse build order: sync and the local API stop, indexing stops, then (when the
 * core ends) the hub's streams, then every tool server (stdio children killed), then (when the
 * core ends, not when a retried start-up rebuilds the graph) the engine process and the model
 * library; the store is closed by its owner last.
 */
export async function closeServices(services: Services, options: { hub?: StreamHub; standing?: boolean } = {}): Promise<void> {
  await plan.close(services as Built, () => options.hub?.close())
  if (options.standing) await closeStandingServices(services)
}
