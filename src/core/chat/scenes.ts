import type { UsageScene } from '../../shared/data/usage-log'
import type { ChatMessage } from '../runtime/types'

/** The scenes of product.md §8 that run a model call of their own (besides Conversation). */
export type SceneName = Extract<
  UsageScene,
  | 'Summary Topic Title'
  | 'Summary History Messages'
  | 'Translator'
  | 'Language Detect'
  | 'Search Intent Recognition'
  | 'Summary Agent Title'
  | 'Summary Agent Description'
  | 'Summary Agent Tags'
>

export const SCENES: readonly SceneName[] = [
  'Summary Topic Title',
  'Summary History Messages',
  'Translator',
  'Language Detect',
  'Search Intent Recognition',
  'Summary Agent Title',
  'Summary Agent Description',
  'Summary Agent Tags'
]

export interface ModelRef {
  providerId: string
  modelId: string
}

/** What a scene runs through: the one model caller (caller/model-caller.ts), which resolves the scene's model from Settings, prices and logs. */
export interface SceneDeps {
  text(input: {
    scene: SceneName
    target?: ModelRef
    messages: ChatMessage[]
    params?: { max_tokens?: number }
    signal?: AbortSignal
    conversationId?: string
    call?: { idleTimeoutMs?: number }
  }): Promise<{ text: string; model: ModelRef }>
}

/** Removes what models wrap answers in: think blocks, surrounding quotes, a trailing full stop. */
export const cleanSceneText = (text: string): string =>
  text
    .replace(/<think>[\s\S]*?<\/think>/g, '')
    .trim()
    .replace(/^["'“”「」]+|["'“”「」]+$/g, '')
    .trim()

/**
 * Runs one scene: its own model call (the model chosen in Settings, else `fallback`), collected
 * into text, priced and recorded in the usage log under the scene's name. Errors throw (the
 * caller decides whether a scene failing matters); a cancelled signal ends it at once.
 */
export async function runScene(
  deps: SceneDeps,
  scene: SceneName,
  fallback: ModelRef | undefined,
  messages: ChatMessage[],
  options: { signal?: AbortSignal; maxTokens?: number; conversationId?: string } = {}
): Promise<{ text: string; model: ModelRef }> {
  const { text, model } = await deps.text({
    scene,
    ...(fallback ? { target: fallback } : {}),
    messages,
    // A scene is a short answer: a stalled stream is given up sooner than a reply.
    call: { idleTimeoutMs: 30_000 },
    ...(options.maxTokens ? { params: { max_tokens: options.maxTokens } } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.conversationId ? { conversationId: options.conversationId } : {})
  })
  return { text, model }
}

/** The prompts of each scene: one place, so tests and fake servers can recognise them. */
export const scenePrompts = {
  title: 'You write a title of at most 8 words for a conversation, in its language. Reply with the title only, no quotes.',
  history:
    'You summarise the earlier part of a conversation so it can continue without it. Keep facts, decisions, names, numbers, code identifiers and open questions; write in the conversation’s language; reply with the summary only.',
  translate: (language: string, from?: string) =>
    `You are a translator. Translate the user's text${from ? ` from ${from}` : ''} into ${language}. Keep formatting, code and links. Reply with the translation only.`,
  detect: 'Which language is the user’s text written in? Reply with its BCP 47 code only (for example en, zh-CN, fr).',
  knowledgeQuery:
    'Rewrite the latest question of the conversation below as one standalone query for searching documents: replace pronouns and references ("it", "that one", "the second") with what they mean in the earlier turns, and keep names, numbers and the question’s language. Reply with the query only.',
  searchIntent: 'Does answering the user’s message need a web search for current or specific facts? Reply with yes or no only.',
  agentTitle: 'From the system prompt below, write a short name (at most 5 words) for this assistant, in the prompt’s language. Reply with the name only.',
  agentDescription: 'From the system prompt below, write a one-sentence description of what this assistant does, in the prompt’s language. Reply with the sentence only.',
  agentTags: 'From the system prompt below, write 3 to 5 short tags for this assistant, comma-separated, in the prompt’s language. Reply with the tags only.'
} as const
