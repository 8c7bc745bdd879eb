import { createBridgeClient, type BridgeClient } from '../../shared/bridge/client'
import type { ClientMessage, MessagePort, ServerMessage } from '../../shared/bridge/protocol'
import type { ContractShape } from '../../shared/bridge/define'
import type { Router } from './router'
import { BridgeSession, type AccessPolicy } from './session'

/**
 * The third transport: client and session in one process (tests, the CLI, benchmarks).
 * Messages are structured-cloned so a test sees exactly what would cross IPC: plain data.
 */
export function createInProcessClient<C extends ContractShape>(
  router: Router<C>,
  options: { access?: AccessPolicy; clone?: boolean } = {}
): { client: BridgeClient<C>; close(): void } {
  const clone = options.clone ?? true
  const listeners = new Set<(message: ServerMessage) => void>()
  const session = new BridgeSession(router, (message) => {
    const copy = clone ? structuredClone(message) : message
    for (const listener of listeners) listener(copy)
  }, options.access)
  const port: MessagePort<ServerMessage, ClientMessage> = {
    send: (message) => session.receive(clone ? structuredClone(message) : message),
    onMessage(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    }
  }
  return { client: createBridgeClient<C>(port), close: () => session.close() }
}
