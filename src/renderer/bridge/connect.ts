import { createBridgeClient, type BridgeClient } from '../../shared/bridge/client'
import type { Contract } from '../../shared/bridge/contract'
import type { DesktopPort, MenuCommand } from '../../shared/bridge/desktop-port'
import type { ClientMessage, MessagePort, ServerMessage } from '../../shared/bridge/protocol'

declare global {
  interface Window {
    /** Set by the Electron preload; absent in browser mode. */
    switchboardPort?: DesktopPort
  }
}

export type ConnectionState = 'connecting' | 'open' | 'reconnecting'

/** The socket address for a page address: same origin, same folder, `bridge`. */
export function bridgeUrl(pageHref: string): string {
  const url = new URL('bridge', pageHref)
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:'
  url.search = ''
  url.hash = ''
  return url.href
}

/**
 * A token left in the address bar would end up in history, bookmarks and screenshots; the
 * server has already traded it for a cookie, so drop it (keeping the route in the hash).
 */
export function dropTokenFromAddress(): void {
  const url = new URL(location.href)
  if (!url.searchParams.has('token')) return
  url.searchParams.delete('token')
  history.replaceState(history.state, '', url.href)
}

/** Password mode: revokes this browser's session on the server; the page then asks again. */
export async function signOut(): Promise<void> {
  await fetch(new URL('sign-out', location.href), { method: 'POST', credentials: 'same-origin' })
}

/**
 * Browser mode: the bridge over a WebSocket to the page's own origin. The token arrived
 * in the URL and the server turned it into an HttpOnly cookie scoped to the app's path,
 * which the socket sends.
 * Reconnects with back-off and re-attaches running streams where they left off.
 */
function webSocketPort(onState: (state: ConnectionState) => void): {
  port: MessagePort<ServerMessage, ClientMessage>
  onReconnect(listener: () => void): void
  onDrop(listener: () => void): void
} {
  const listeners = new Set<(message: ServerMessage) => void>()
  const queue: string[] = []
  let socket: WebSocket | undefined
  let attempts = 0
  let reconnectListener: (() => void) | undefined
  let dropListener: (() => void) | undefined
  // Relative to the page: in token mode the app lives under its own unguessable path.
  const url = bridgeUrl(location.href)

  const open = () => {
    const ws = new WebSocket(url)
    socket = ws
    ws.onopen = () => {
      const reconnect = attempts > 0
      attempts = 0
      onState('open')
      for (const data of queue.splice(0)) ws.send(data)
      if (reconnect) reconnectListener?.()
    }
    ws.onmessage = (event) => {
      const message = JSON.parse(String(event.data)) as ServerMessage
      for (const listener of listeners) listener(message)
    }
    ws.onclose = () => {
      if (socket !== ws) return
      dropListener?.()
      onState('reconnecting')
      attempts++
      setTimeout(open, Math.min(5000, 200 * 2 ** Math.min(attempts, 5)))
    }
  }
  onState('connecting')
  open()

  return {
    port: {
      send(message) {
        const data = JSON.stringify(message)
        if (socket?.readyState === WebSocket.OPEN) socket.send(data)
        else queue.push(data)
      },
      onMessage(listener) {
        listeners.add(listener)
        return () => listeners.delete(listener)
      }
    },
    onReconnect: (listener) => (reconnectListener = listener),
    onDrop: (listener) => (dropListener = listener)
  }
}

export interface Connection {
  client: BridgeClient<Contract>
  mode: 'desktop' | 'browser'
  onMenu(listener: (command: MenuCommand) => void): () => void
}

export function connect(
  onState: (state: ConnectionState) => void,
  hooks: { beforeResume?: (client: BridgeClient<Contract>) => Promise<void> } = {}
): Connection {
  const desktop = window.switchboardPort
  if (desktop) {
    onState('open')
    return { client: createBridgeClient<Contract>(desktop), mode: 'desktop', onMenu: (l) => desktop.onMenu(l) }
  }
  dropTokenFromAddress()
  const ws = webSocketPort(onState)
  const client = createBridgeClient<Contract>(ws.port)
  ws.onReconnect(() => void (hooks.beforeResume?.(client) ?? Promise.resolve()).then(() => client.resume()))
  ws.onDrop(() => client.disconnected())
  return { client, mode: 'browser', onMenu: () => () => undefined }
}
