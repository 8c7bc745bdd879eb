import type { Contract } from '../../../shared/bridge/contract'
import { notReady } from '../not-ready'
import type { CoreContext } from '../../context'
import type { Implementation } from '../router'
import { Competition } from '../../services/chat/competition'
import type { StreamHub } from '../stream-hub'

type CompetitionHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `competition.${string}`>>

/** Chat Competition (issue 18): its replies run as `chat.send`-shaped streams of the hub. */
export function competitionHandlers(ctx: CoreContext, hub: () => StreamHub): CompetitionHandlers {
  // Built per call (it holds nothing): a retried start-up's new chat service is always the one used.
  const service = (): Competition => {
    const chat = ctx.chat
    const store = ctx.store
    if (!chat || !store) throw notReady(ctx, 'Chat')
    return new Competition({
      chat,
      agents: store.agents,
      conversations: store.conversations,
      messages: store.messages,
      startStream: (run) => hub().start('chat.send', run)
    })
  }
  return {
    'competition.start': (input) => service().start(input),
    'competition.regenerate': (input) => service().regenerate(input),
    'competition.choose': (input) => service().choose(input)
  }
}
