
/**
 * What a message carries beyond its content: the options the user chose for the
 * reply, a summary of the history up to this message, and translations kept under it.
 */

/** The chat controls a reply was asked with, shown on the message. */
export interface ChosenOptions {
  thinking?: boolean
  budget?: number
  effort?: string
  caching?: boolean
  search?: boolean
  /** How the search was done: the provider's own or the app's search tool. */
  searchRoute?: 'provider' | 'app-tool'
}

/** Scene Summary History Messages: everything up to and including this message, summarised. */
export interface HistorySummary {
  text: string
  /** How many messages it replaces. */
  covers: number
  providerId: string
  modelId: string
  at: number
}

export interface MessageMeta {
  options?: ChosenOptions
  historySummary?: HistorySummary
  /** Target language → translated text (scene Translator). */
  translations?: Record<string, string>
  /** On a user message answered by several models at once (Chat Competition). */
  competition?: CompetitionMeta
  /**
   * An `interrupted` reply the user stopped (as opposed to a dropped connection, which
   * leaves its error, or the app closing mid-reply, which leaves neither).
   */
  interruptedBy?: 'user'
  /**
   * On a reply that read knowledge bases, the search query retrieval used when it was a
   * rewrite of the question (scene Search Intent Recognition); absent when the question was searched as asked.
   */
  knowledgeQuery?: string
}

/** A model a Chat Competition asked (chat/competition.ts). */
export interface CompetitionModel {
  providerId: string
  modelId: string
}

/** Kept in the user message's meta. */
export interface CompetitionMeta {
  models: CompetitionModel[]
  /** The reply the conversation continues from; absent while the user has not chosen. */
  chosenId?: string
}
