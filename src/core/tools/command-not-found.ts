import type { AppError } from '../../shared/errors/app-error'
import { pluginError } from './tool-errors'

/**
 * A stdio tool server whose command does not exist (spawn ENOENT): say which command, where it
 * was looked for, and the fix, instead of "spawn npx ENOENT". An app started from the Finder or a
 * desktop launcher has a shorter PATH than a terminal; the installed app reads the login shell's.
 */
export function commandNotFound(error: unknown, server: string, command: string | undefined, path: string | undefined): AppError | undefined {
  const code = (error as { code?: unknown } | null)?.code
  const syscall = (error as { syscall?: unknown } | null)?.syscall
  if (code !== 'ENOENT' || !command || (syscall !== undefined && !String(syscall).startsWith('spawn'))) return undefined
  const absolute = /^([a-zA-Z]:)?[\\/]/.test(command)
  const where = absolute ? 'that file does not exist' : `it is not in any folder of PATH (${path || 'empty'})`
  return pluginError(
    'PluginSettingsInvalid',
    `${server}: the command "${command}" was not found: ${where}. Install it, or give its full path (run \`command -v ${command.split(/[\\/]/).pop()}\` in a terminal) in Settings → Tools.`
  )
}
