import type { Feature, ProceduresOf } from '../feature'
import type { Store } from '../store'
import type { ProviderService } from '../providers/provider-service'
import type { ModelCaller } from '../caller/model-caller'
import { SpeechService } from './speech-service'
import { speechHandlers } from './handlers'

/** Text to speech and speech to text. */
export const speechFeature: Feature<{ env: { dataDir: string }; store: Store; providers: ProviderService; caller: ModelCaller }, { speech: SpeechService }, ProceduresOf<'speech'>> = {
  create: ({ env, store, providers, caller }) => ({
    speech: new SpeechService({
      caller,
      providers: () => providers.summaries(),
      models: (providerId) => providers.models(providerId),
      storedSettings: () => store.settings.app().voice,
      dataDir: env.dataDir
    })
  }),
  handlers: (use) => speechHandlers(use('speech', 'Speech'))
}
