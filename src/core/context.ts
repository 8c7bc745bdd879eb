import type { AccessPolicy } from './bridge/session'
import type { InitService } from './services/init-service'
import type { LocalFeature } from './local'

/** What every handler can reach. Features add their services here as they land (one field each). */
export interface CoreContext {
  version: string
  mode: 'desktop' | 'browser' | 'test'
  dataDir: string
  init: InitService
  access?: AccessPolicy
  local: LocalFeature
}
