import type { Contract } from '../../../shared/bridge/contract'
import type { CommandLineStatus, UpdateMode, UpdateStatus } from '../../../shared/bridge/procedures/updates'
import { AppErrorException } from '../../../shared/errors/app-error'
import type { Implementation } from '../router'

/**
 * The desktop shell's updater and command-line installer, given to the core the way the file
 * dialog is: the shell owns electron-updater and the file system outside the data folder; the
 * core only exposes them to the renderer. Browser mode, the CLI and tests pass none.
 */
export interface UpdaterPort {
  status(): UpdateStatus
  /** Calls `listener` on every change; returns the unsubscribe. */
  subscribe(listener: (status: UpdateStatus) => void): () => void
  check(): Promise<UpdateStatus>
  download(): Promise<UpdateStatus>
  restart(): void
  setMode(mode: UpdateMode): UpdateStatus
  commandLine: {
    status(): CommandLineStatus
    install(): Promise<CommandLineStatus>
  }
}

type UpdateHandlers = Pick<
  Implementation<Contract>,
  'app.update.status' | 'app.update.check' | 'app.update.download' | 'app.update.restart' | 'app.update.setMode' | 'app.commandLine.status' | 'app.commandLine.install'
>

const NOT_HERE = 'Only the installed desktop app updates itself; browser mode and checkouts update with git pull and npm ci.'
const unavailable = (version: string): UpdateStatus => ({ phase: 'unavailable', mode: 'off', currentVersion: version, message: NOT_HERE })
const refuse = () => new AppErrorException({ errorType: 'UpdatesUnavailable', status: 501, message: NOT_HERE })

export function updateHandlers(updater: UpdaterPort | undefined, version: string): UpdateHandlers {
  return {
    'app.update.status': async function* (_input, { signal }) {
      if (!updater) {
        yield unavailable(version)
        return
      }
      const queue: UpdateStatus[] = [updater.status()]
      let wake: (() => void) | undefined
      const unsubscribe = updater.subscribe((status) => {
        queue.push(status)
        wake?.()
      })
      try {
        for (;;) {
          while (queue.length > 0) yield queue.shift()!
          if (signal.aborted) return
          await new Promise<void>((resolve) => {
            wake = resolve
            signal.addEventListener('abort', () => resolve(), { once: true })
          })
          wake = undefined
        }
      } finally {
        unsubscribe()
      }
    },
    'app.update.check': () => (updater ? updater.check() : Promise.reject(refuse())),
    'app.update.download': () => (updater ? updater.download() : Promise.reject(refuse())),
    'app.update.restart': () => {
      if (!updater) throw refuse()
      updater.restart()
      return { restarting: true as const }
    },
    'app.update.setMode': ({ mode }) => {
      if (!updater) throw refuse()
      return updater.setMode(mode)
    },
    'app.commandLine.status': () => updater?.commandLine.status() ?? { available: false, installed: false, advice: 'In a checkout, run npx switchboard (or npm link) instead.' },
    'app.commandLine.install': () => (updater ? updater.commandLine.install() : Promise.reject(refuse()))
  }
}
