/**
 * The names the core gives what it creates on its own: the default agent and a conversation
 * before it has a title. They are stored as these English words (older data has them too) and
 * shown in the user's language at display time, so switching the language renames
 * them, while a name the user chose is shown as it is.
 */
export const DEFAULT_AGENT_NAME = 'Just Chat'
export const DEFAULT_CONVERSATION_TITLE = 'New chat'

/** A conversation still without a title of its own. */
export const isUntitled = (title: string): boolean => !title.trim() || title === DEFAULT_CONVERSATION_TITLE
