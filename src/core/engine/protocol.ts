/**
 * The messages between the core and the engine host (the process that runs llama.cpp). Plain
 * JSON-serialisable objects: they cross a child-process pipe or an Electron MessagePort.
 * Every request carries an id; the host answers it with one `result` or `error`, and a chat
 * also with `chunk` messages before its `done`.
 */

/** A turn as the engine's chat wrapper takes it (node-llama-cpp's ChatHistoryItem, restated so the core does not import the engine). */
export type EngineHistoryItem =
  | { type: 'system'; text: string }
  | { type: 'user'; text: string }
  | { type: 'model'; response: Array<string | EngineFunctionCall | { type: 'segment'; segmentType: 'thought'; text: string; ended: boolean }> }

export interface EngineFunctionCall {
  type: 'functionCall'
  name: string
  params: unknown
  result: unknown
  startsNewChunk?: boolean
}

export interface EngineFunction {
  name: string
  description?: string
  /** JSON schema of the parameters. */
  params?: Record<string, unknown>
}

export interface LoadParams {
  modelId: string
  path: string
  /** Per sequence: each of `sequences` parallel requests has this much. */
  contextSize: number
  threads: number
  /** How many requests the model serves at once (context sequences); 1 when absent. */
  sequences?: number
}

export interface ChatParams {
  modelId: string
  history: EngineHistoryItem[]
  maxTokens?: number
  temperature?: number
  topP?: number
  /** Texts that end the reply where they appear (OpenAI's `stop`, Anthropic's `stop_sequences`); not part of the reply. */
  stop?: string[]
  functions?: EngineFunction[]
  /** Force one call of these functions (any of them when true), through a grammar. */
  forceFunctionCall?: boolean | string
  /** Constrain the reply to this JSON schema. */
  jsonSchema?: Record<string, unknown>
  /** OpenAI's logit_bias: token id (as a string) → −100..100 added to its logit; −100 bans the token. */
  logitBias?: Record<string, number>
}

export interface EmbedParams {
  modelId: string
  /** Each input as text, or as the model's own token ids. */
  inputs: Array<string | number[]>
}

export type EngineRequest =
  | { id: number; type: 'load'; params: LoadParams }
  | { id: number; type: 'unload'; params: { modelId: string } }
  | { id: number; type: 'chat'; params: ChatParams }
  | { id: number; type: 'embed'; params: EmbedParams }
  | { id: number; type: 'status' }
  /** Stops the chat with this id at once (what was generated is kept). */
  | { id: number; type: 'abort'; target: number }

export interface LoadedModelStatus {
  modelId: string
  path: string
  contextSize: number
  trainedContextSize: number
  /** Bytes of weights as loaded (node-llama-cpp's model.size). */
  weightsBytes: number
  /** Bytes of the context's state (KV cache) as allocated. */
  contextBytes: number
  architecture?: string
}

export interface EngineStatus {
  pid: number
  /** Resident memory of the engine process: what the loaded models really use. */
  rssBytes: number
  vram?: { total: number; used: number }
  llamaCppRelease?: string
  models: LoadedModelStatus[]
}

/** What a chat chunk carries. */
export type EngineChunk =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; text: string }

export interface ChatDone {
  stopReason: 'eogToken' | 'stopGenerationTrigger' | 'functionCalls' | 'maxTokens' | 'abort' | 'customStopTrigger'
  functionCalls?: Array<{ name: string; params: unknown }>
  /** The text of the reply, for the JSON-schema check. */
  text: string
  promptTokens: number
  /** Of the prompt tokens, those already in the engine's cache from an earlier turn. */
  cachedPromptTokens: number
  outputTokens: number
  /** From the engine's own clock: request received → first token, and tokens/s after it. */
  ttftMs?: number
  tokensPerSecond?: number
}

export interface EmbedResult {
  embeddings: number[][]
  tokens: number
}

export interface EngineErrorData {
  code: 'not-loaded' | 'load-failed' | 'unsupported-architecture' | 'bad-request' | 'failed' | 'busy' | 'context-exceeded'
  message: string
}

export type EngineReply =
  | { id: number; type: 'result'; data: unknown }
  | { id: number; type: 'error'; error: EngineErrorData }
  | { id: number; type: 'chunk'; chunk: EngineChunk }
  | { id: number; type: 'done'; data: ChatDone }
  /** Sent once when the host is up and has the engine ready to load. */
  | { id: 0; type: 'ready'; data: { pid: number } }
