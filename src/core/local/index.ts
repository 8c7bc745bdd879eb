import { join } from 'node:path'
import { PullService, type PullServiceOptions } from './pull-service'
import { DetectionService } from './detection-service'
import { LocalSettings } from './local-settings'
import { OllamaManager } from './ollama-manager'

/** The local-models feature as the core holds it: detection, the Ollama manager, the pulls. */
export interface LocalFeature {
  settings: LocalSettings
  detection: DetectionService
  ollama: OllamaManager
  pulls: PullService
  close(): Promise<void>
}

export function createLocalFeature(dataDir: string | undefined, options: { fetch?: typeof fetch; pull?: PullServiceOptions } = {}): LocalFeature {
  const settings = new LocalSettings(dataDir ? join(dataDir, 'local-servers.json') : undefined)
  const detection = new DetectionService(settings, { fetch: options.fetch })
  const ollamaBaseUrl = () => detection.baseUrl('ollama')
  const ollama = new OllamaManager(ollamaBaseUrl, options.fetch)
  const pulls = new PullService({ fetch: options.fetch, defaultBaseUrl: ollamaBaseUrl, ...options.pull })
  return { settings, detection, ollama, pulls, close: () => pulls.close() }
}

export { DetectionService, normaliseServerUrl } from './detection-service'
export { OllamaManager } from './ollama-manager'
export { LocalSettings } from './local-settings'
