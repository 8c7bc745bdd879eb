// Child process: a real core in one start-up state, every procedure of the contract called
// once through a BridgeSession (the code path every transport runs). Prints one JSON report.
// Usage: every-procedure-child.ts <dataDir> <starting|settled|filled>
// 'filled': started on a disk with room, which then fills up before the procedures are called.
import { openSync, writeSync, closeSync } from 'node:fs'
import { join } from 'node:path'
import { createCore } from '../../../src/core'
import { BridgeSession } from '../../../src/core/bridge/session'
import { contract } from '../../../src/shared/bridge/contract'
import type { ServerMessage } from '../../../src/shared/bridge/protocol'
import { isTerminal } from '../../../src/shared/app/init-state'
import { sampleInput } from './sample-input'

const [dataDir, mode] = process.argv.slice(2) as [string, 'starting' | 'settled' | 'filled']
let uncaught = 0
process.on('uncaughtException', (error) => {
  uncaught++
  console.error('uncaught', error)
})
process.on('unhandledRejection', (error) => {
  uncaught++
  console.error('unhandled', error)
})

// 'starting': a keychain that never answers keeps start-up inside its store step (the slow probe).
const hanging = { get: () => new Promise<null>(() => undefined), set: async () => undefined, delete: async () => false }
// Built by hand, not through tests/integration/test-core.ts: this child process is the test subject (its start-up is driven and watched here).
const core = createCore({
  dataDir,
  mode: 'test',
  secrets: mode === 'starting' ? { backend: hanging, timeoutMs: 3_600_000 } : { service: 'switchboard-test-every-procedure' }
})

const waitFor = async (check: () => boolean, ms: number) => {
  const end = Date.now() + ms
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 20))
}
if (mode !== 'starting') await waitFor(() => isTerminal(core.context.init.state.phase), 20_000)
else
  await waitFor(() => {
    try {
      return core.context.services.get('store', 'Your data') !== undefined
    } catch {
      return false
    }
  }, 20_000)

if (mode === 'filled') {
  // The disk fills up while the app runs: a file grows until the file system refuses it.
  const fd = openSync(join(dataDir, 'filler'), 'w')
  const block = Buffer.alloc(4096)
  try {
    for (;;) writeSync(fd, block)
  } catch {
    // ENOSPC: the disk is full
  }
  closeSync(fd)
}

type Answer = { proc: string; kind: string; outcome: 'ok' | 'error' | 'pending'; errorType?: string; message?: string }
const answers: Answer[] = []
const pending = new Map<number, (message: ServerMessage) => void>()
const session = new BridgeSession(core.router, (message) => {
  if ('id' in message) pending.get(message.id)?.(message)
})

let nextId = 1
const ask = (proc: string, kind: 'call' | 'stream') =>
  new Promise<Answer>((resolve) => {
    const id = nextId++
    const done = (answer: Omit<Answer, 'proc' | 'kind'>) => {
      pending.delete(id)
      clearTimeout(timer)
      resolve({ proc, kind, ...answer })
    }
    const timer = setTimeout(() => done({ outcome: 'pending' }), 4_000)
    pending.set(id, (message) => {
      if (message.t === 'result' || message.t === 'end') {
        if (message.result.ok) done({ outcome: 'ok' })
        else done({ outcome: 'error', errorType: message.result.error.errorType, message: message.result.error.message })
      } else if (message.t === 'refused') done({ outcome: 'error', errorType: message.error.errorType, message: message.error.message })
      else if (message.t === 'started' && kind === 'stream') {
        // A stream that starts and keeps running (progress, a pull) has answered; its end may come later.
      }
    })
    const input = sampleInput(contract[proc as keyof typeof contract].input)
    session.receive(kind === 'call' ? { t: 'call', id, proc, input } : { t: 'start', id, proc, input })
  })

// One at a time: the answers are easy to read, and a crash names the procedure that caused it.
for (const [proc, def] of Object.entries(contract)) {
  if (proc === 'app.retryInit') continue // run last: it changes the state under test
  answers.push(await ask(proc, def.kind))
}
answers.push(await ask('app.retryInit', 'call'))
const stillUp = await ask('app.info', 'call')

process.stdout.write(
  JSON.stringify({ phase: core.context.init.state.phase, detail: core.context.init.state.detail, answers, stillUp: stillUp.outcome === 'ok', uncaught }) + '\n'
)
session.close()
process.exit(0)
