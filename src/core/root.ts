import type { StreamHub } from './bridge/stream-hub'
import type { Store } from './store'
import type { Secrets } from './secrets'
import type { FeatureSettingsStore } from './store/repositories/settings'
import type { SyncTuning } from './sync/sync-service'
import type { OpenedGraph } from './store/start-up'
import { FeaturePlan, type FeatureEnv, type Use } from './feature'
import { localFeature, localServersFeature } from './local/feature'
import { engineFeature, type EngineOptions } from './engine/feature'
import { modelsLibraryFeature } from './models-library/feature'
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

export type { EngineOptions } from './engine/feature'

/** What the root is given about the process it runs in. */
export interface RootEnv extends FeatureEnv {
  localApi?: { host?: string; port?: number; serve?: boolean } | undefined
  keyEnv?: NodeJS.ProcessEnv | undefined
  sync?: SyncTuning | undefined
  openExternal?: ((url: string) => void) | undefined
  /** How the built-in engine's process starts (the desktop passes its utilityProcess spawner; tests a host entry). */
  engine?: EngineOptions | undefined
}

/** What the standing stage is built on: the environment, the hub, and the keychain once start-up opened it. */
interface StandingBase {
  env: RootEnv
  hub: StreamHub
  /** Read at each use: the keychain opens later, in start-up (the model library's Hugging Face token). */
  keychain: () => Secrets | undefined
  /** Read at each use: the settings table, once start-up built the graph on the store (the local servers' addresses). */
  settings: () => FeatureSettingsStore | undefined
  /** Why a part the store holds is not there now: start-up is running (at which step) or failed (and why). */
  unavailable: (what: string) => Error
}

/**
 * The composition root: the one place that knows the whole graph. Each feature folder exports a
 * `Feature` (feature.ts): how its services are built from those before it, its handlers, its start
 * and close. They are listed here in dependency order, one line each; the compiler refuses a line
 * placed before what it needs. Adding a feature is its folder and one line here.
 *
 * The standing stage needs no store: it is built when the core is made and answers in every
 * start-up state. The rest is built each time start-up has opened the store and the keychain.
 */
const plan = FeaturePlan.start<StandingBase>()
  .add(localFeature)
  .add(engineFeature)
  .add(modelsLibraryFeature)
  .opens<{ store: Store; secrets: Secrets }>()
  .add(localServersFeature)
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
type Standing = ReturnType<typeof plan.stand>

/** The handlers of every procedure the features declared. */
export type FeatureHandlers = ReturnType<typeof plan.handlers>

/**
 * Every service of the core, built. No field is optional: the graph exists whole or not at all
 * (before the store opens, `ServiceAccess` answers not-ready). A part that may fail on its own
 * (a native engine) is typed `Service | Unavailable` here, never left undefined.
 */
export type Services = Omit<Built, 'env' | 'hub' | 'keychain' | 'settings'>

/** The services of the standing stage: built when the core is made, so they answer in every start-up state. */
export type StandingServices = Omit<Standing, 'env' | 'hub' | 'keychain' | 'settings'>

/** Builds the standing stage. */
export function buildStandingServices(base: StandingBase): StandingServices {
  const { env: _env, hub: _hub, keychain: _keychain, settings: _settings, ...standing } = plan.stand(base)
  return standing
}

/** Closes the standing stage when the core ends (downloads are left resumable, the engine process stops, pulls end). */
export async function closeStandingServices(standing: StandingServices): Promise<void> {
  await plan.closeStanding(standing as Standing)
}

/** Builds every feature after the standing stage, in the plan's order, on the opened store and keychain. */
export function buildServices(input: { env: RootEnv; hub: StreamHub; standing: StandingServices; store: Store; secrets: Secrets }): Services {
  const { env, hub, standing, store, secrets } = input
  const { env: _env, hub: _hub, keychain: _keychain, settings: _settings, ...services } = plan.build(
    { env, hub, keychain: () => secrets, settings: () => store.settings, ...standing },
    { store, secrets }
  )
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
 * core ends, not when a retried start-up rebuilds the graph) the standing stage: the model
 * library, the engine process, local pulls; the store is closed by its owner last.
 */
export async function closeServices(services: Services, options: { hub?: StreamHub; standing?: boolean } = {}): Promise<void> {
  await plan.close(services as Built, () => options.hub?.close())
  if (options.standing) await closeStandingServices(services)
}

/** Where the built graph is held (the core's `ServiceAccess`). */
interface GraphSlot {
  built(): Services | undefined
  set(services: Services | undefined): void
  provide(parts: Partial<Services>): void
}

/**
 * What start-up's store step does with the store and keychain it opened: the root builds the
 * graph on them and hands it to the core's `ServiceAccess`; a retried start-up first closes the
 * graph (and the store) the last run built.
 */
export function openedGraph(access: GraphSlot, env: RootEnv, hub: StreamHub, standing: StandingServices): OpenedGraph {
  return {
    async reset() {
      const previous = access.built()
      access.set(undefined)
      if (previous) {
        await closeServices(previous)
        previous.store.close()
      }
    },
    early: (store) => access.provide({ store }),
    build({ store, secrets }) {
      const services = buildServices({ env, hub, standing, store, secrets })
      startServices(services)
      access.set(services)
    },
    abandon: () => access.provide({})
  }
}
