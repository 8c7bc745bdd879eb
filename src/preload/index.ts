import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron'
import { IPC_CHANNEL, type ClientMessage, type ServerMessage } from '../shared/bridge/protocol'

// The preload exposes one message port to the bridge and nothing else: no ipcRenderer,
// no Node. The typed client is built on top of it in the renderer (src/shared/bridge/client.ts).
const port = {
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
  onMenu(listener: (command: string) => void) {
    const handler = (_event: IpcRendererEvent, command: string) => listener(String(command))
    ipcRenderer.on('switchboard:menu', handler)
    return () => {
      ipcRenderer.off('switchboard:menu', handler)
    }
  }
}

contextBridge.exposeInMainWorld('switchboardPort', port)
