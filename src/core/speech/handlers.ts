import type { Contract } from '../../shared/bridge/contract'
import type { SpeechService } from './speech-service'
import type { Implementation } from '../bridge/router'

type SpeechHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `speech.${string}`>>


export function speechHandlers(speech: () => SpeechService): SpeechHandlers {
  return {
    'speech.settings': () => speech().settings(),
    'speech.models': () => speech().models(),
    'speech.speak': (input, { signal }) => speech().speak(input, { signal }),
    'speech.transcribe': (input, { signal }) => speech().transcribe(input, { signal })
  }
}
