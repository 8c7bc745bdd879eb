import { fork } from 'node:child_process'
import type { EngineReply, EngineRequest } from './protocol'

/**
 * One running engine host, however it was started. The shell chooses how (decision in
 * docs/decisions.md): an Electron utilityProcess on the desktop, child_process.fork in browser
 * mode, the CLI and tests. The core sees only this.
 */
export interface EngineProcess {
  readonly pid: number | undefined
  send(message: EngineRequest): void
  onMessage(handler: (message: EngineReply) => void): void
  /** Called once when the process ends, for whatever reason (a crash or kill included). */
  onExit(handler: (info: { code: number | null; signal: string | null }) => void): void
  kill(): void
  /**
   * Whether requests are open. An idle engine must not keep a short-lived process (the CLI)
   * alive, and a busy one must: a spawner that can, holds the process only while busy.
   */
  setBusy?(busy: boolean): void
}

export interface EngineSpawner {
  /** What the status shows: 'child process' or 'utility process'. */
  readonly kind: string
  spawn(): EngineProcess
}

export interface ForkSpawnerOptions {
  /** The built host entry (out/main/engine-host.js). */
  entry: string
  execArgv?: string[]
  env?: NodeJS.ProcessEnv
}

/** The engine in a Node child process over the fork IPC channel. */
export function forkSpawner(options: ForkSpawnerOptions): EngineSpawner {
  return {
    kind: 'child process',
    spawn() {
      const child = fork(options.entry, [], {
        execArgv: options.execArgv ?? [],
        env: options.env ?? process.env,
        // The host's own output (llama.cpp warnings) goes to our stderr, not into the IPC channel.
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        serialization: 'advanced'
      })
      let exited = false
      const exitHandlers: Array<(info: { code: number | null; signal: string | null }) => void> = []
      const exit = (code: number | null, signal: string | null): void => {
        if (exited) return
        exited = true
        for (const h of exitHandlers) h({ code, signal })
      }
      child.on('exit', (code, signal) => exit(code, signal))
      child.on('error', () => exit(null, 'spawn-error'))
      return {
        get pid() {
          return child.pid
        },
        send(message) {
          if (!exited && child.connected) child.send(message)
        },
        onMessage(handler) {
          child.on('message', (m) => handler(m as EngineReply))
        },
        onExit(handler) {
          exitHandlers.push(handler)
        },
        kill() {
          if (!exited) child.kill('SIGKILL')
        },
        setBusy(busy) {
          if (exited) return
          const channel = child.channel as { ref?: () => void; unref?: () => void } | undefined
          if (busy) {
            child.ref()
            channel?.ref?.()
          } else {
            child.unref()
            channel?.unref?.()
          }
        }
      }
    }
  }
}

export type EngineSpawnChoice = 'utility-process' | 'child-process' | 'none'

/** The shell's way to start the engine as an Electron utilityProcess (the core never imports electron). */
export type UtilityProcessSpawner = (entry: string) => EngineSpawner

/**
 * How the engine process starts: the one place that decides, for the desktop, the installed CLI,
 * browser mode and tests. Under Electron a utilityProcess: Electron's own process for Node work,
 * started with the app's runtime. Never a fork of the app binary there: the packaged app has
 * runAsNode fused off, so such a child starts the app instead of the engine (and macOS
 * hardened runtime and some antivirus treat it as a second app). Under plain Node (browser
 * mode, the CLI from a checkout, tests) a child process forked from Node. Electron without a
 * utilityProcess spawner to hand has no way to start the engine ('none').
 */
export function chooseEngineSpawn(shell: { electron: boolean; utilityProcess: boolean }): EngineSpawnChoice {
  if (!shell.electron) return 'child-process'
  return shell.utilityProcess ? 'utility-process' : 'none'
}

export interface EngineSpawnOptions {
  /** The built host entry (out/main/engine-host.js). */
  entry: string
  /** Whether this process runs under Electron; default from process.versions. */
  electron?: boolean
  /** The shell's utilityProcess spawner, when it has one (the desktop and the installed CLI). */
  utilityProcess?: UtilityProcessSpawner | undefined
}

/** The spawner chooseEngineSpawn picks. */
export function engineSpawner(options: EngineSpawnOptions): EngineSpawner {
  const electron = options.electron ?? Boolean(process.versions['electron'])
  const choice = chooseEngineSpawn({ electron, utilityProcess: options.utilityProcess !== undefined })
  if (choice === 'utility-process') return options.utilityProcess!(options.entry)
  if (choice === 'child-process') return forkSpawner({ entry: options.entry })
  return {
    kind: 'none',
    spawn() {
      throw new Error('The built-in engine cannot start here: under Electron it runs as a utility process, and this process was given no way to start one. Start it from the app (or run the CLI from a checkout with Node).')
    }
  }
}
