import { homedir } from 'node:os'
import { join } from 'node:path'

/** The app's data folder, as the desktop app and `npm run serve` use it. */
export function dataDirFrom(flags: Map<string, string | true>, env: NodeJS.ProcessEnv): string {
  const flag = flags.get('data-dir')
  if (typeof flag === 'string') return flag
  if (env['SWITCHBOARD_DATA_DIR']) return env['SWITCHBOARD_DATA_DIR']
  const home = homedir()
  if (process.platform === 'darwin') return join(home, 'Library', 'Application Support', 'Switchboard', 'data')
  if (process.platform === 'win32') return join(env['APPDATA'] ?? join(home, 'AppData', 'Roaming'), 'Switchboard', 'data')
  return join(env['XDG_CONFIG_HOME'] ?? join(home, '.config'), 'Switchboard', 'data')
}
