import type { AccessPolicy } from './bridge/session'
import type { InitService } from './services/init-service'
import type { Store } from './store'
import type { Secrets } from './secrets'
import type { LocalFeature } from './local'
import type { ModelsLibraryFeature } from './models-library'
import type { ChatService } from './services/chat-service'
import type { ImageService } from './services/image-service'
import type { ProviderService } from './services/provider-service'
import type { SpeechService } from './services/speech-service'
import type { AttachmentService } from './services/attachment-service'
import type { EmbeddingService } from './services/embedding-service'
import type { ToolService } from './tools/tool-service'
import type { KnowledgeService } from './knowledge/knowledge-service'
import type { EvalService } from './knowledge/eval-service'

/** The desktop shell's file dialogs (Electron only): the chosen path, or undefined when cancelled. */
export interface FileDialog {
  choose(purpose: 'import' | 'export', suggestedName: string): Promise<string | undefined>
}

/** What every handler can reach. Features add their services here as they land (one field each). */
export interface CoreContext {
  version: string
  mode: 'desktop' | 'browser' | 'test'
  dataDir: string
  init: InitService
  access?: AccessPolicy
  /** Set by the Electron shell; absent in browser mode, the CLI and tests that do not give one. */
  fileDialog?: FileDialog
  local: LocalFeature
  /** Finding, fitting and downloading models (Hugging Face, the Ollama registry, models on disk). */
  modelsLibrary: ModelsLibraryFeature
  /** Opened by the 'migrating' start-up step; undefined until then. */
  store?: Store
  /** Opened by the same step; keys live in the OS keychain (or in memory, reported). */
  secrets?: Secrets
  /** Built once the store and keychain are open. */
  providers?: ProviderService
  chat?: ChatService
  speech?: SpeechService
  attachments?: AttachmentService
  embeddings?: EmbeddingService
  images?: ImageService
  tools?: ToolService
  /** Opens an address in the user's browser (desktop only: an OAuth sign-in of a tool server). */
  openExternal?: (url: string) => void
  knowledge?: KnowledgeService
  knowledgeEvals?: EvalService
}
