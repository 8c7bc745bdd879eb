import { runEngineHost, type HostPort } from '../core/engine/host/engine-host'
import type { EngineReply, EngineRequest } from '../core/engine/protocol'
import { installBindingTestRelay, isRelayMessage } from './binding-test-relay'

/**
 * The entry of the engine process. Under Electron's utilityProcess the channel is
 * process.parentPort; under child_process.fork (browser mode, the CLI from a checkout, tests) it
 * is the IPC channel of process.send.
 */
interface ParentPort {
  postMessage(message: unknown): void
  on(event: 'message', listener: (event: { data: unknown }) => void): void
}

const parentPort = (process as unknown as { parentPort?: ParentPort }).parentPort
if (parentPort) {
  // A utility process cannot start node-llama-cpp's binding test itself: the main process does.
  const receive = installBindingTestRelay((message) => parentPort.postMessage(message))
  parentPort.on('message', (event) => receive(event.data))
}
const port: HostPort = parentPort
  ? {
      send: (message: EngineReply) => parentPort.postMessage(message),
      onMessage: (handler) =>
        parentPort.on('message', (event) => {
          if (!isRelayMessage(event.data)) handler(event.data as EngineRequest)
        })
    }
  : {
      send: (message: EngineReply) => process.send?.(message),
      onMessage: (handler) => process.on('message', (message) => handler(message as EngineRequest))
    }

// The core going away (its end of the channel closes) ends the engine: no orphaned model in memory.
if (!parentPort) process.on('disconnect', () => process.exit(0))

runEngineHost(port)
