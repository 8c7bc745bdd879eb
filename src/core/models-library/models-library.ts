import type { ModelsLibrary } from './library-service'

/** The model library as the core holds it: search, fit, downloads; the Hugging Face token in the keychain. */
export interface ModelsLibraryFeature {
  library: ModelsLibrary
  hfToken(): Promise<string | undefined>
  setHfToken(token: string | null): Promise<void>
  close(): Promise<void>
}
