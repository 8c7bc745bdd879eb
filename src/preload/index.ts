import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron'
import { isMenuCommand, MENU_CHANNEL, type DesktopPort } from '../shared/bridge/desktop-port'
import { IPC_CHANNEL, type ClientMessage, type ServerMessage } from '../shared/bridge/protocol'

// The preload exposes one message port to the bridge and the menu commands, nothing else: no
// ipcRenderer, no Node. Its shape is `DesktopPort` (src/shared/bridge/desktop-port.ts); the typed
// client is built on top of it in the renderer (src/shared/bridge/client.ts).
const port: DesktopPort = {
  send(message: ClientMessage) {
    ipcRenderer.send(IPC_CHANNEL, message)
  },
  onMessage(listener: (message: ServerMessage) => void) {
    const handler = (_event: IpcRendererEvent, message: ServerMessage) => listener(message)
    ipcRenderer.on(IPC_CHANNEL, handler)
    return () => {
      ipcRenderer.off(IPC_CHANNEL, handler)
    }
  },
  onMenu(listener) {
    // Only the commands of the contract reach the page.
    const handler = (_event: IpcRendererEvent, command: unknown) => {
      if (isMenuCommand(command)) listener(command)
    }
    ipcRenderer.on(MENU_CHANNEL, handler)
    return () => {
      ipcRenderer.off(MENU_CHANNEL, handler)
    }
  }
}

contextBridge.exposeInMainWorld('switchboardPort', port)
