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
import { builtinCommand } from './builtin'

/** Every CLI command; each lives in its own file here (one import and one entry per command). */
export const commands: CliCommand[] = [modelsCommand, providersCommand, pullCommand, psCommand, rmCommand, chatCommand, embedCommand, speakCommand, transcribeCommand, imageCommand, kbCommand, builtinCommand]
