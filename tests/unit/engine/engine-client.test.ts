import { expect, it } from 'vitest'
import { EngineClient } from '../../../src/core/engine/engine-client'
import type { EngineProcess, EngineSpawner } from '../../../src/core/engine/engine-process'
import type { EngineReply, EngineRequest } from '../../../src/core/engine/protocol'

/** A stand-in engine process: answers `status` at once, and takes a while to exit when killed (as a real one does). */
function fakeSpawner(exitDelayMs: number): EngineSpawner & { spawned: number } {
  const spawner = {
    kind: 'fake',
    spawned: 0,
    spawn(): EngineProcess {
      spawner.spawned++
      const pid = spawner.spawned
      let onMessage: (m: EngineReply) => void = () => undefined
      let onExit: Array<(info: { code: number | null; signal: string | null }) => void> = []
      let dead = false
      setTimeout(() => onMessage({ id: 0, type: 'ready', data: { pid } }), 1)
      return {
        pid,
        send(message: EngineRequest) {
          if (dead) return
          setTimeout(() => !dead && onMessage({ id: message.id, type: 'result', data: { pid } } as unknown as EngineReply), 1)
        },
        onMessage: (handler) => void (onMessage = handler),
        onExit: (handler) => void onExit.push(handler),
        kill() {
          setTimeout(() => {
            dead = true
            for (const h of onExit) h({ code: null, signal: 'SIGTERM' })
            onExit = []
          }, exitDelayMs)
        }
      }
    }
  }
  return spawner
}

it('a request made while the engine is being stopped goes to a new process instead of failing with the old one', async () => {
  const spawner = fakeSpawner(30)
  const client = new EngineClient(spawner)
  await client.load({ modelId: 'tiny' } as never)
  expect(spawner.spawned).toBe(1)
  // Keep-alive ran out: the core stops the idle engine; a load arrives before the process is gone.
  const stopping = client.stop()
  const loaded = client.load({ modelId: 'tiny' } as never)
  await stopping
  await expect(loaded).resolves.toEqual({ pid: 2 })
  expect(spawner.spawned).toBe(2)
  await client.stop()
})
