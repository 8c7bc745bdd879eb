import childProcess, { type ChildProcess } from 'node:child_process'
import { EventEmitter } from 'node:events'
import { syncBuiltinESMExports } from 'node:module'

/**
 * On Linux node-llama-cpp tests its prebuilt binding before loading it, in a process of its own
 * (a binary that crashes on load must not take the caller down): from Electron's main process it
 * starts that process with utilityProcess.fork, elsewhere with child_process.fork of
 * process.execPath. The engine host is itself a utility process, where Electron offers no
 * utilityProcess, so the test would fork the app's executable as Node; the packaged app has
 * runAsNode fused off, so that copy starts the app instead, the test fails and getLlama (build:
 * 'never') throws NoBinaryFoundError. The host hands exactly that fork to the main process, which
 * starts the same test file as a utility process and relays its messages: node-llama-cpp's own
 * test runs unchanged, in a process of its own, and no copy of the app binary is asked to be Node.
 */
export type RelayRequest =
  | { type: 'binding-test:fork'; id: number; modulePath: string; env: Record<string, string> }
  | { type: 'binding-test:send'; id: number; message: unknown }
  | { type: 'binding-test:kill'; id: number }
export type RelayReply = { type: 'binding-test:message'; id: number; message: unknown } | { type: 'binding-test:exit'; id: number; code: number }

const PREFIX = 'binding-test:'
export function isRelayMessage(message: unknown): message is RelayRequest | RelayReply {
  return typeof message === 'object' && message !== null && typeof (message as { type?: unknown }).type === 'string' && (message as { type: string }).type.startsWith(PREFIX)
}

/** node-llama-cpp's binding test file (3.21.1: dist/bindings/utils/testBindingBinary.js), and nothing else. */
export function isBindingTestModule(modulePath: string): boolean {
  return /[\\/]node-llama-cpp[\\/]dist[\\/]bindings[\\/]utils[\\/]testBindingBinary\.js$/.test(modulePath)
}

const stringEnv = (env: NodeJS.ProcessEnv | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(env ?? process.env).filter((e): e is [string, string] => typeof e[1] === 'string'))

/**
 * In the engine host (a utility process): a fork of node-llama-cpp's binding test goes to the main
 * process; every other fork is Node's. node-llama-cpp imports `fork` by name from
 * node:child_process, so the replacement is published to ES module importers with Node's
 * syncBuiltinESMExports. Returns the handler of the main process's replies.
 */
export function installBindingTestRelay(post: (message: RelayRequest) => void): (message: unknown) => boolean {
  const original = childProcess.fork
  const children = new Map<number, RelayedChild>()
  let next = 0
  class RelayedChild extends EventEmitter {
    readonly stdout = null
    readonly stderr = null
    readonly pid = undefined
    exitCode: number | null = null
    killed = false
    constructor(readonly id: number) {
      super()
    }
    send(message: unknown): boolean {
      if (this.exitCode === null) post({ type: 'binding-test:send', id: this.id, message })
      return true
    }
    kill(): boolean {
      if (this.exitCode !== null) return false
      this.killed = true
      post({ type: 'binding-test:kill', id: this.id })
      return true
    }
    ref(): void {}
    unref(): void {}
  }
  const relayed = ((modulePath: string | URL, args?: unknown, options?: unknown): ChildProcess => {
    const opts = (Array.isArray(args) ? options : args) as childProcess.ForkOptions | undefined
    const path = modulePath instanceof URL ? modulePath.pathname : String(modulePath)
    if (!isBindingTestModule(path) || opts?.env?.['TEST_BINDING_CP'] !== 'true') return (original as (...a: unknown[]) => ChildProcess)(modulePath, args, options)
    const child = new RelayedChild(++next)
    children.set(child.id, child)
    post({ type: 'binding-test:fork', id: child.id, modulePath: path, env: stringEnv(opts.env) })
    return child as unknown as ChildProcess
  }) as typeof childProcess.fork
  childProcess.fork = relayed
  syncBuiltinESMExports()
  return (message) => {
    if (!isRelayMessage(message)) return false
    const child = children.get(message.id)
    if (!child) return true
    if (message.type === 'binding-test:message') child.emit('message', message.message)
    else if (message.type === 'binding-test:exit') {
      children.delete(message.id)
      child.exitCode = message.code
      child.emit('exit', message.code, null)
    }
    return true
  }
}

/** What the main process needs of Electron's utility process to run a relayed test. */
export interface RelayedProcess {
  postMessage(message: unknown): void
  on(event: 'message', listener: (message: unknown) => void): void
  on(event: 'exit', listener: (code: number) => void): void
  kill(): boolean
}

/**
 * In the main process: runs the binding tests one engine host asks for as utility processes.
 * Only node-llama-cpp's test file is started; anything else is answered with a failed exit.
 */
export function bindingTestRunner(fork: (modulePath: string, env: Record<string, string>) => RelayedProcess, reply: (message: RelayReply) => void) {
  const running = new Map<number, RelayedProcess>()
  return {
    handle(message: RelayRequest): void {
      if (message.type === 'binding-test:fork') {
        if (!isBindingTestModule(message.modulePath)) return reply({ type: 'binding-test:exit', id: message.id, code: 1 })
        let child: RelayedProcess
        try {
          child = fork(message.modulePath, message.env)
        } catch {
          return reply({ type: 'binding-test:exit', id: message.id, code: 1 })
        }
        running.set(message.id, child)
        child.on('message', (m) => reply({ type: 'binding-test:message', id: message.id, message: m }))
        child.on('exit', (code) => {
          running.delete(message.id)
          reply({ type: 'binding-test:exit', id: message.id, code: code ?? 1 })
        })
      } else if (message.type === 'binding-test:send') running.get(message.id)?.postMessage(message.message)
      else running.get(message.id)?.kill()
    },
    /** The engine host ended: so do its tests. */
    stopAll(): void {
      for (const child of running.values()) child.kill()
      running.clear()
    }
  }
}
