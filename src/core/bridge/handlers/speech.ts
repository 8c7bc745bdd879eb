import type { Contract } from '../../../shared/bridge/contract'
import { needs } from '../../services-access'
import type { CoreContext } from '../../context'
import type { Implementation } from '../router'

type SpeechHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `speech.${string}`>>


export function speechHandlers(ctx: CoreContext): SpeechHandlers {
  const speech = needs(ctx, 'speech', 'Speech')
  return {
    'speech.settings': () => speech().settings(),
    'speech.models': () => speech().models(),
    'speech.speak': (input, { signal }) => speech().speak(input, { signal }),
    'speech.transcribe': (input, { signal }) => speech().transcribe(input, { signal })
  }
}
