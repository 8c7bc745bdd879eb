/**
 * The provider runtime's public API (DESIGN §3). Services and the CLI import from here;
 * native adapters import the pieces they reuse from their own files (see ./types).
 */
export type * from './types'
export { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_RETRIES, DEFAULT_RETRY_AFTER_CAP_MS } from './types'
export { createProviderRuntime, registerProvider, unregisterProvider, resolveProviderFactory, hasNativeAdapter } from './registry'
export { requireApiKey, requireKeyAndBaseURL, requireBedrockCredentials, requireCloudflareTarget, requireValidURL } from './credentials'
export { runtimeError, throwRuntimeError, CANCELLED_MESSAGE } from './runtime-error'
export { mapProviderError, readErrorFacts, isAbortError, isConnectionError, type ErrorContext } from './errors/map-provider-error'
export { runChatStream, ChunkParseError, STREAM_CHUNK_ERROR_MESSAGE, type ChunkTransformer, type ChatStreamSource } from './stream/run-chat-stream'
export { ThinkTagSplitter } from './stream/think-tag-splitter'
export { ToolCallMerger, ToolCallDeltaNormaliser } from './stream/tool-call-merger'
export { SpeedTracker } from './stream/speed-tracker'
export { IdleWatchdog } from './stream/idle-watchdog'
export { parseRetryAfter, retryDecision, backoffMs, sleep } from './retry'
export { withCost } from './usage-cost'
export { pricingContextOf } from './pricing-context'
export { createOpenAICompatibleRuntime, openAICompatibleConfig } from './openai-compatible/create-runtime'
export { openAICompatibleProviders } from './openai-compatible/providers/index'
export { applyOpenAIReasoningRules, azureReasoningEffort, isOpenAIReasoningModel } from './openai-compatible/payload-rules'
export { resolveProviderKey, runtimeForCli, parseTarget, envKeyName, keychainKey } from './key-source'
