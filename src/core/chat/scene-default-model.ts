import type { ModelRef } from './scenes'

/**
 * The model of a background scene (titles, translation, summaries…) when Settings chose none: the
 * conversation's own model, as Settings says. A cheaper catalogue model of the same provider was
 * tried and sent titles to models the user never chose, which a proxy or a custom server may not
 * serve; the user can still pick a small model per scene in Settings.
 */
export function sceneDefaultModel(conversationModel: ModelRef | undefined): ModelRef | undefined {
  return conversationModel
}
