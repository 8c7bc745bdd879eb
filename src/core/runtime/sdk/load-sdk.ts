/**
 * The provider SDKs, each loaded the first time an adapter needs it. Importing them at the top
 * of the runtime made every start (app, server, CLI) parse ~90 MB of SDK code that most sessions
 * never use; a dynamic import keeps that cost on the first call to the provider instead.
 * A failed load is not remembered, so a later call tries again.
 */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined
  return () =>
    (pending ??= load().catch((error: unknown) => {
      pending = undefined
      throw error
    }))
}

export const loadOpenAI = once(() => import('openai'))
export const loadAnthropic = once(() => import('@anthropic-ai/sdk'))
export const loadGoogleGenAI = once(() => import('@google/genai'))
export const loadOllama = once(() => import('ollama'))
export const loadBedrock = once(() => import('@aws-sdk/client-bedrock-runtime'))
