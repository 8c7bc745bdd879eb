import type { Contract } from '../../../shared/bridge/contract'
import { notReady as notReadyFor } from '../not-ready'
import type { CoreContext } from '../../context'
import type { SpeechService } from '../../services/speech-service'
import type { Implementation } from '../router'

type SpeechHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `speech.${string}`>>


export function speechHandlers(ctx: CoreContext): SpeechHandlers {
  const speech = (): SpeechService => ctx.speech ?? (() => { throw notReadyFor(ctx, 'Speech') })()
  return {
    'speech.settings': () => speech().settings(),
    'speech.models': () => speech().models(),
    'speech.speak': (input, { signal }) => speech().speak(input, { signal }),
    'speech.transcribe': (input, { signal }) => speech().transcribe(input, { signal })
  }
}
