import { isAbsolute, join, resolve } from 'node:path'

/**
 * The desktop app's data folder, chosen like `npm run serve` and the CLI choose theirs:
 * `--data-dir DIR` (or `--data-dir=DIR`), then SWITCHBOARD_DATA_DIR, then `<userData>/data`.
 * A relative folder is taken from the working directory the app was started in.
 */
export function desktopDataDir(argv: readonly string[], env: Record<string, string | undefined>, userData: string, cwd: string): string {
  let chosen: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--data-dir' && argv[i + 1]) chosen = argv[i + 1]
    else if (arg.startsWith('--data-dir=')) chosen = arg.slice('--data-dir='.length)
  }
  chosen ||= env['SWITCHBOARD_DATA_DIR'] || undefined
  if (!chosen) return join(userData, 'data')
  return isAbsolute(chosen) ? chosen : resolve(cwd, chosen)
}
