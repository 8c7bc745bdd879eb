import type { Contract } from '../../../shared/bridge/contract'
import { needs } from '../../services-access'
import type { CoreContext } from '../../context'
import type { Implementation } from '../router'

type CompetitionHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `competition.${string}`>>

/** Chat Competition: its replies run as `chat.send`-shaped streams of the hub. */
export function competitionHandlers(ctx: CoreContext): CompetitionHandlers {
  // Built once by the root with the chat service; a retried start-up builds both again.
  const competition = needs(ctx, 'competition', 'Chat')
  return {
    'competition.start': (input) => competition().start(input),
    'competition.regenerate': (input) => competition().regenerate(input),
    'competition.choose': (input) => competition().choose(input)
  }
}
