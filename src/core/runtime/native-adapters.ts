import type { ProviderFactory } from './types'
import { createAnthropicRuntime } from './providers/anthropic/anthropic-runtime'
import { createAzureRuntime } from './providers/azure/azure-runtime'
import { createAzureAIRuntime } from './providers/azureai/azureai-runtime'
import { createBedrockRuntime } from './providers/bedrock/bedrock-runtime'
import { createCloudflareRuntime } from './providers/cloudflare/cloudflare-runtime'
import { createGoogleRuntime } from './providers/google/google-runtime'
import { createHuggingFaceRuntime } from './providers/huggingface/huggingface-runtime'
import { createVertexRuntime } from './providers/vertexai/vertex-runtime'
import { createOllamaRuntime } from './providers/ollama/ollama-runtime'
import { createBflRuntime, createFalRuntime } from './images/image-runtimes'

/**
 * Native (non-OpenAI-wire) adapters by provider id. Each helper adds ONE line for its
 * provider at the marked place, e.g. `anthropic: createAnthropicRuntime,` plus its import.
 * Ids not listed here go to the OpenAI-compatible adapter (./registry).
 */
export const nativeAdapters: Record<string, ProviderFactory> = {
  ollama: createOllamaRuntime,
  anthropic: createAnthropicRuntime,
  azure: createAzureRuntime,
  azureai: createAzureAIRuntime,
  bedrock: createBedrockRuntime,
  cloudflare: createCloudflareRuntime,
  google: createGoogleRuntime,
  huggingface: createHuggingFaceRuntime,
  vertexai: createVertexRuntime,
  bfl: createBflRuntime,
  fal: createFalRuntime,
  // native adapters go here
}
