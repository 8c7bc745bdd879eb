import type { AppSettings } from '../../shared/data/app-settings'
import { logger } from '../log/logger'
import { priceFromCatalogue } from '../providers/catalogue-price'
import type { ProviderRuntime } from '../runtime/types'
import type { SceneName } from '../chat/scenes'
import { ModelCaller, type ModelCallerDeps, type UsageEntry } from './model-caller'

/** What a process gives the model caller: the app's composition root, the CLI and the headless knowledge service alike. */
export interface CallerWiring {
  runtimeFor(providerId: string): Promise<ProviderRuntime>
  /** Where each call's usage row goes: the data folder's usage log (store.usage, or the CLI's). */
  usage: { add(entry: UsageEntry): unknown }
  /** Default: the built-in catalogue's prices (a process without the provider service and its custom prices). */
  price?: ModelCallerDeps['price']
  /** The Settings whose scene models (Settings → Scenes, the title model) win for background scenes; absent: the call's target. */
  settings?: { app(): AppSettings }
}

/**
 * The one way a model caller is made, so that every call, the CLI's too, is priced and written
 * to the usage log the same way (`switchboard usage` and the Usage page show them all).
 */
export function createModelCaller(wiring: CallerWiring): ModelCaller {
  const { settings } = wiring
  return new ModelCaller({
    runtimeFor: wiring.runtimeFor,
    price: wiring.price ?? priceFromCatalogue,
    logUsage: (entry) => {
      try {
        wiring.usage.add(entry)
      } catch (error) {
        // The usage log must never fail a reply, but a lost entry is logged.
        logger.warn('usage', 'recording a usage entry failed', error)
      }
    },
    ...(settings ? { sceneModel: (scene: SceneName) => sceneModelFrom(settings.app(), scene) } : {})
  })
}

/** Each scene's model from Settings (`sceneModels`, keyed by scene name); titles also have their own setting. */
function sceneModelFrom(app: AppSettings, scene: SceneName): { providerId: string; modelId: string } | undefined {
  const chosen = app.sceneModels?.[scene]
  if (chosen) return chosen
  const title = scene === 'Summary Topic Title' ? app.titleModel : undefined
  return title ? { providerId: title.providerId, modelId: title.modelId } : undefined
}
