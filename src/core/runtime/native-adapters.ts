import type { ProviderFactory } from './types'
import { createOllamaRuntime } from './providers/ollama/ollama-runtime'

/**
 * Native (non-OpenAI-wire) adapters by provider id. Each helper adds ONE line for its
 * provider at the marked place, e.g. `anthropic: createAnthropicRuntime,` plus its import.
 * Ids not listed here go to the OpenAI-compatible adapter (./registry).
 */
export const nativeAdapters: Record<string, ProviderFactory> = {
  ollama: createOllamaRuntime,
  // native adapters go here
}
