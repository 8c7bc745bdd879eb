import type { CliCommand } from '../command'

/** Every CLI command; each lives in its own file here (one import and one entry per command). */
export const commands: CliCommand[] = []
