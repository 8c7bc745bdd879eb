import type { Contract } from '../../../shared/bridge/contract'
import { AppErrorException } from '../../../shared/errors/app-error'
import type { CoreContext } from '../../context'
import type { SpeechService } from '../../services/speech-service'
import type { Implementation } from '../router'

type SpeechHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `speech.${string}`>>

const notReady = () => new AppErrorException({ errorType: 'AgentRuntimeError', status: 503, message: 'Switchboard is still starting; try again in a moment.' })

export function speechHandlers(ctx: CoreContext): SpeechHandlers {
  const speech = (): SpeechService => ctx.speech ?? (() => { throw notReady() })()
  return {
    'speech.settings': () => speech().settings(),
    'speech.models': () => speech().models(),
    'speech.speak': (input, { signal }) => speech().speak(input, { signal }),
    'speech.transcribe': (input, { signal }) => speech().transcribe(input, { signal })
  }
}
