import { basename } from 'node:path'

/**
 * An app started from the Finder (or a Linux desktop launcher) gets the system's short PATH
 * (`/usr/bin:/bin:/usr/sbin:/sbin`), not the one the user's shell builds, so `npx` or `node` from
 * Homebrew, nvm or Volta are not found when a stdio tool server starts. The packaged app asks
 * the login shell once at start-up, as terminals and editors do.
 */
export const PATH_SENTINEL = '_SWITCHBOARD_PATH_7f3a_'

/** Whether to read the login shell's PATH: packaged on macOS and Linux (a checkout is started from a terminal that has it). */
export function shouldReadLoginShellPath(platform: NodeJS.Platform, isPackaged: boolean): boolean {
  return isPackaged && (platform === 'darwin' || platform === 'linux')
}

/**
 * The command that prints PATH between two sentinels, so whatever the shell's start-up files
 * print (greetings, `nvm` notices) is told apart. Interactive (-i) and login (-l): PATH is set in
 * .zshrc/.bashrc as often as in .profile. fish keeps PATH as a list.
 */
export function loginShellCommand(shell: string | undefined, platform: NodeJS.Platform): { file: string; args: string[] } {
  const file = shell && shell.startsWith('/') ? shell : platform === 'darwin' ? '/bin/zsh' : '/bin/sh'
  const name = basename(file)
  const print =
    name === 'fish'
      ? `printf '%s%s%s' '${PATH_SENTINEL}' (string join : $PATH) '${PATH_SENTINEL}'`
      : name === 'nu' || name === 'nushell'
        ? `print -n $"${PATH_SENTINEL}($env.PATH | str join ':')${PATH_SENTINEL}"`
        : `printf '%s%s%s' '${PATH_SENTINEL}' "$PATH" '${PATH_SENTINEL}'`
  return { file, args: name === 'sh' || name === 'dash' ? ['-lc', print] : ['-ilc', print] }
}

/** The PATH printed between the sentinels, or undefined when the output holds none (the shell failed or printed nothing usable). */
export function parseLoginShellPath(output: string): string | undefined {
  const start = output.indexOf(PATH_SENTINEL)
  if (start < 0) return undefined
  const end = output.indexOf(PATH_SENTINEL, start + PATH_SENTINEL.length)
  if (end < 0) return undefined
  const path = output.slice(start + PATH_SENTINEL.length, end)
  if (!path || /[\r\n\0]/.test(path)) return undefined
  const entries = path.split(':').filter((entry) => entry.startsWith('/'))
  return entries.length > 0 ? entries.join(':') : undefined
}

/** The login shell's entries first (its order wins), then any of the app's own that it lacks. */
export function mergePath(shellPath: string | undefined, currentPath: string | undefined): string | undefined {
  if (!shellPath) return currentPath
  const seen = new Set<string>()
  const merged: string[] = []
  for (const entry of [...shellPath.split(':'), ...(currentPath ?? '').split(':')]) {
    if (!entry || seen.has(entry)) continue
    seen.add(entry)
    merged.push(entry)
  }
  return merged.join(':')
}
