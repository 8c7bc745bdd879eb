import { nativeSpec } from '../../provider-spec'
import { createOllamaRuntime } from './ollama-runtime'

/** Ollama: a local server, its own API. */
export const ollamaSpec = nativeSpec({ id: 'ollama', factory: createOllamaRuntime })
