import { join, posix, win32 } from 'node:path'

/**
 * The `switchboard` command in the installed app. The app's own executable runs the CLI when its
 * first argument is a CLI command (or --help / --version with --cli): runAsNode is fused off, so
 * there is no Node to hand cli.js to, and the deb already links /usr/bin/switchboard to the
 * executable. Without such an argument it opens the window, as `code` does.
 */
export const CLI_COMMANDS = ['models', 'providers', 'pull', 'ps', 'rm', 'chat', 'embed', 'speak', 'transcribe', 'image', 'kb', 'api', 'builtin', 'sync', 'usage', 'help'] as const
/** Forces the CLI (the installed shim passes it, so `switchboard --version` prints instead of opening the window). */
export const CLI_FLAG = '--cli'

/**
 * The CLI's arguments when this launch is a command-line run, else undefined. `argv` is
 * process.argv: packaged, the user's arguments start at [1]; in a checkout (`electron .`) at [2].
 */
export function cliArguments(argv: readonly string[], isPackaged: boolean): string[] | undefined {
  const args = argv.slice(isPackaged ? 1 : 2)
  if (args[0] === CLI_FLAG) return args.slice(1)
  return args[0] !== undefined && (CLI_COMMANDS as readonly string[]).includes(args[0]) ? [...args] : undefined
}

export interface ShimPlacement {
  platform: NodeJS.Platform
  home: string
  env: Record<string, string | undefined>
  /** The executable to run: process.execPath, or $APPIMAGE for an AppImage (its mount point changes each run). */
  executable: string
}

export interface ShimPlan {
  /** The folder the shim goes in, and the shim's full path. */
  folder: string
  file: string
  content: string
  /** Whether that folder is already on the user's PATH (else `pathAdvice` says how to add it). */
  onPath: boolean
  pathAdvice?: string
  /** Windows: the user PATH to store (the folder appended) when it is not on PATH yet. */
  newUserPath?: string
}

const quoteSh = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`

/** The first words of every shim the app writes: a shim with them is the app's to rewrite. */
export const SHIM_MARKER = '# Installed by Switchboard'

/**
 * An AppImage with a version in its name (Switchboard-1.2.0.AppImage) is replaced by an update
 * with the new version's file in the same folder (electron-updater's AppImageUpdater keeps the
 * name only when it has no version), so the shim looks for it there when the named one is gone;
 * the app also rewrites the shim when it is told the new name.
 */
function appImageLookup(executable: string): string | undefined {
  const dir = posix.dirname(executable)
  const name = posix.basename(executable)
  const versioned = /^(.*?)\d+\.\d+\.\d+.*\.AppImage$/i.exec(name)
  if (!versioned) return undefined
  return (
    `app=${quoteSh(executable)}\n` +
    `# An update puts the new version's AppImage beside it under the new version's name.\n` +
    `[ -x "$app" ] || for f in ${quoteSh(`${dir}/${versioned[1]}`)}*.AppImage; do [ -x "$f" ] && app=$f; done\n` +
    `exec "$app" ${CLI_FLAG} "$@"\n`
  )
}

/**
 * Where to put the `switchboard` shim and what it says, per OS, the way editors do (`code`,
 * `subl`): a per-user folder that needs no administrator. macOS and Linux: ~/.local/bin (on PATH
 * in most Linux distributions; macOS users add it once, the plan says how); Windows: a folder
 * under %LOCALAPPDATA% appended to the user's PATH.
 */
export function shimPlan(placement: ShimPlacement): ShimPlan {
  const { platform, home, env, executable } = placement
  if (platform === 'win32') {
    const local = env['LOCALAPPDATA'] ?? win32.join(home, 'AppData', 'Local')
    const folder = win32.join(local, 'Switchboard', 'bin')
    const userPath = env['Path'] ?? env['PATH'] ?? ''
    const onPath = userPath.split(';').some((entry) => entry.replace(/[\\/]+$/, '').toLowerCase() === folder.toLowerCase())
    return {
      folder,
      file: win32.join(folder, 'switchboard.cmd'),
      content: `@echo off\r\n"${executable}" ${CLI_FLAG} %*\r\n`,
      onPath,
      ...(onPath ? {} : { newUserPath: userPath ? `${userPath.replace(/;+$/, '')};${folder}` : folder, pathAdvice: 'Open a new terminal window to use it.' })
    }
  }
  const folder = posix.join(home, '.local', 'bin')
  const run = appImageLookup(executable) ?? `exec ${quoteSh(executable)} ${CLI_FLAG} "$@"\n`
  const onPath = (env['PATH'] ?? '').split(':').some((entry) => entry.replace(/\/+$/, '') === folder)
  const profile = platform === 'darwin' ? '~/.zprofile' : '~/.profile'
  return {
    folder,
    file: join(folder, 'switchboard'),
    content: `#!/bin/sh\n${SHIM_MARKER} (Settings → General → Command-line tool). Runs the app's CLI.\n${run}`,
    onPath,
    ...(onPath ? {} : { pathAdvice: `Add ~/.local/bin to your PATH: echo 'export PATH="$HOME/.local/bin:$PATH"' >> ${profile}, then open a new terminal.` })
  }
}
