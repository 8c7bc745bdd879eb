import { PullService, type PullServiceOptions } from './pull-service'
import { DetectionService } from './detection-service'
import { LocalSettings } from './local-settings'
import { OllamaManager } from './ollama-manager'
import type { FeatureSettingsStore } from '../store/repositories/settings'

/** The local-models feature as the core holds it: detection, the Ollama manager, the pulls. */
export interface LocalFeature {
  /** The user-set addresses, in the settings table once start-up opened it (decision 158). */
  settings: LocalSettings
  detection: DetectionService
  ollama: OllamaManager
  pulls: PullService
  close(): Promise<void>
}

export function createLocalFeature(
  options: { settings?: () => FeatureSettingsStore | undefined; unavailable?: () => Error; fetch?: typeof fetch; pull?: PullServiceOptions } = {}
): LocalFeature {
  const settings = new LocalSettings(options.settings, options.unavailable)
  const detection = new DetectionService(settings, { fetch: options.fetch })
  const ollamaBaseUrl = () => detection.baseUrl('ollama')
  const ollama = new OllamaManager(ollamaBaseUrl, options.fetch)
  const pulls = new PullService({ fetch: options.fetch, defaultBaseUrl: ollamaBaseUrl, ...options.pull })
  return { settings, detection, ollama, pulls, close: () => pulls.close() }
}

export { DetectionService, normaliseServerUrl } from './detection-service'
export { OllamaManager } from './ollama-manager'
export { LocalSettings, migrateLocalServersFile } from './local-settings'
