import type { Contract } from '../../shared/bridge/contract'
import type { Competition } from './competition'
import type { Implementation } from '../bridge/router'

type CompetitionHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `competition.${string}`>>

/** Chat Competition: its replies run as `chat.send`-shaped streams of the hub. */
export function competitionHandlers(competition: () => Competition): CompetitionHandlers {
  return {
    'competition.start': (input) => competition().start(input),
    'competition.regenerate': (input) => competition().regenerate(input),
    'competition.choose': (input) => competition().choose(input)
  }
}
