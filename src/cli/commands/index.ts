import type { CliCommand } from '../command'
import { modelsCommand } from './models'
import { providersCommand } from './providers'
import { pullCommand } from './pull'
import { psCommand } from './ps'
import { rmCommand } from './rm'
import { chatCommand } from './chat'
import { embedCommand } from './embed'
import { speakCommand } from './speak'
import { transcribeCommand } from './transcribe'
import { imageCommand } from './image'
import { kbCommand } from './kb'
import { apiCommand } from './api'
import { syncCommand } from './sync'
import { usageCommand } from './usage'

/**
 * Every CLI command; each lives in its own file here (one import and one entry per command).
 * A command file imports statically only what its name, usage and flag checks need; the core it
 * runs on (runtime, SDKs, store, tools, knowledge) it imports inside `run`, so `switchboard --help`,
 * `providers` and `models` start without loading any of it (tests/unit/cli/cli-startup-graph.test.ts).
 */
export const commands: CliCommand[] = [modelsCommand, providersCommand, pullCommand, psCommand, rmCommand, chatCommand, embedCommand, speakCommand, transcribeCommand, imageCommand, kbCommand, apiCommand, syncCommand, usageCommand, builtinCommand]
import { builtinCommand } from './builtin'
