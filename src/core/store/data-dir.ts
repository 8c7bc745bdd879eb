import { homedir } from 'node:os'
import { join } from 'node:path'

/** The app's data folder, as the desktop app, `serve` and the CLI use it (SWITCHBOARD_DATA_DIR overrides). */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (env['SWITCHBOARD_DATA_DIR']) return env['SWITCHBOARD_DATA_DIR']
  const home = homedir()
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'Switchboard', 'data')
  if (platform === 'win32') return join(env['APPDATA'] ?? join(home, 'AppData', 'Roaming'), 'Switchboard', 'data')
  return join(env['XDG_CONFIG_HOME'] ?? join(home, '.config'), 'Switchboard', 'data')
}
