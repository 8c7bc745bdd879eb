import type { ProviderFactory } from '../types'

// Placeholder replaced in the next commit by the real OpenAI-compatible runtime.
export const createOpenAICompatibleRuntime: ProviderFactory = (_credentials, context) => ({ id: context.providerId })
