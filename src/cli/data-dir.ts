import { defaultDataDir } from '../core/store/data-dir'

/** The data folder a CLI command works on: `--data-dir`, else the app's (SWITCHBOARD_DATA_DIR overrides). */
export function dataDirFrom(flags: Map<string, string | true>, env: NodeJS.ProcessEnv): string {
  const flag = flags.get('data-dir')
  return typeof flag === 'string' ? flag : defaultDataDir(env)
}
