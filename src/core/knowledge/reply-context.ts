import type { ReplySource, SearchHit } from '../../shared/knowledge/types'
import { countTokens } from '../../shared/tokens/count-tokens'
import type { KnowledgeService } from './knowledge-service'

export interface ReplyKnowledgeInput {
  agentId: string
  conversationId: string
  /** The user's question (the last user message). */
  question: string
  /** Tokens the retrieved text may take. */
  budgetTokens: number
  signal: AbortSignal
  /**
   * Turns the question into a standalone search query (scene Search Intent Recognition, only when
   * Settings chose its model). Called only when bases are attached; never throws: whatever goes
   * wrong, it answers undefined and the question is searched as asked.
   */
  rewrite?(signal: AbortSignal): Promise<string | undefined>
}

export interface ReplyKnowledge {
  /** A system message the model reads before the conversation. */
  instructions: string
  sources: ReplySource[]
  /** What was searched: the question, or its rewrite. */
  query: string
}

export type ReplyKnowledgeHook = (input: ReplyKnowledgeInput) => Promise<ReplyKnowledge | undefined>

export const RETRIEVED_CHUNKS = 8
/** Retrieved text never takes more than this, whatever the window allows. */
export const MAX_KNOWLEDGE_TOKENS = 6000

/** Adds chunks in rank order while they fit the budget; numbers them 1…n. */
export function packSources(hits: readonly SearchHit[], budgetTokens: number): { text: string; sources: ReplySource[] } {
  const sources: ReplySource[] = []
  const parts: string[] = []
  let used = 0
  for (const hit of hits) {
    const n = sources.length + 1
    const where = [hit.fileName, hit.heading, hit.page ? `page ${hit.page}` : null].filter(Boolean).join(' · ')
    const part = `[${n}] ${where}\n${hit.text}`
    const tokens = countTokens(part) + 4
    if (used + tokens > budgetTokens) continue
    used += tokens
    parts.push(part)
    sources.push({
      n,
      kbId: hit.kbId,
      fileId: hit.fileId,
      fileName: hit.fileName,
      chunkId: hit.chunkId,
      heading: hit.heading,
      page: hit.page,
      charStart: hit.charStart,
      charEnd: hit.charEnd,
      excerpt: hit.text.slice(0, 300),
      score: hit.rerankScore ?? hit.score
    })
  }
  return { text: parts.join('\n\n'), sources }
}

/**
 * What the chat service calls before each reply: the bases attached to the conversation and its
 * agent are searched with the question (or its rewrite, see `rewrite`), the best chunks that fit
 * the budget become a numbered context, and the numbers are the reply's sources.
 */
export function replyContextHook(knowledge: KnowledgeService): ReplyKnowledgeHook {
  return async (input) => {
    const kbIds = [
      ...new Set([...knowledge.repo.attached({ kind: 'agent', id: input.agentId }), ...knowledge.repo.attached({ kind: 'conversation', id: input.conversationId })])
    ]
    if (kbIds.length === 0 || !input.question.trim()) return undefined
    // Both the embedding and the keyword list search the rewritten query when there is one.
    const query = (await input.rewrite?.(input.signal))?.trim() || input.question
    const hits = await knowledge.search({ kbIds, query, topK: RETRIEVED_CHUNKS }, input.signal)
    const { text, sources } = packSources(hits, Math.min(MAX_KNOWLEDGE_TOKENS, input.budgetTokens))
    if (sources.length === 0) return undefined
    // The sources go with the reply (a grounding event, stored in the message): the chat service sends them.
    return {
      instructions:
        'Use the numbered sources below when they answer the question, and cite them inline as [1], [2] … by their numbers. ' +
        'If they do not contain the answer, say so.\n\n' +
        text,
      sources,
      query
    }
  }
}
