import type { ClientMessage, MessagePort, ServerMessage } from './protocol'

/**
 * The desktop window's side channel: commands from the application menu (File ▸ New Chat…).
 * They come from main, not from the core, so they do not travel as bridge messages; this is
 * their contract, shared by main (sender), the preload (which drops anything else) and the
 * renderer (listener).
 */
export const MENU_CHANNEL = 'switchboard:menu'

export const MENU_COMMANDS = ['new-chat'] as const
export type MenuCommand = (typeof MENU_COMMANDS)[number]

export const isMenuCommand = (value: unknown): value is MenuCommand => (MENU_COMMANDS as readonly unknown[]).includes(value)

/** What the Electron preload exposes as `window.switchboardPort`: the bridge's message port and the menu commands. */
export interface DesktopPort extends MessagePort<ServerMessage, ClientMessage> {
  onMenu(listener: (command: MenuCommand) => void): () => void
}
