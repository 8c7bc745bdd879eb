import type { CoreContext } from '../context'
import type { InitStep } from './init-service'
import { AttachmentService } from './attachment-service'
import { EmbeddingService } from './embedding-service'
import { SpeechService } from './speech-service'

/** Speech, attachments and embeddings, once the provider service exists (after the chat step). */
export function voiceFilesInitStep(context: CoreContext): InitStep {
  return {
    phase: 'migrating',
    run() {
      const store = context.store
      const providers = context.providers
      if (!store || !providers) throw new Error('The local data could not be opened, so voice and files cannot start.')
      const runtimeFor = (providerId: string) => providers.runtime(providerId)
      const attachments = new AttachmentService({ files: store.files, dataDir: context.dataDir })
      context.attachments = attachments
      context.chat?.useFileContext((fileIds) => attachments.context(fileIds))
      context.embeddings = new EmbeddingService({ runtimeFor })
      context.speech = new SpeechService({
        runtimeFor,
        providers: () => providers.summaries(),
        models: (providerId) => providers.models(providerId),
        storedSettings: () => store.settings.app().voice,
        dataDir: context.dataDir
      })
    }
  }
}
