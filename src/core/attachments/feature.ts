import type { Feature, ProceduresOf } from '../feature'
import type { Store } from '../store'
import { AttachmentService } from './attachment-service'
import { fileHandlers } from './handlers'

/** Files attached to messages, and the streamed upload every upload takes. */
export const attachmentsFeature: Feature<{ env: { dataDir: string }; store: Store }, { attachments: AttachmentService }, ProceduresOf<'files'>> = {
  create: ({ env, store }) => ({ attachments: new AttachmentService({ files: store.files, dataDir: env.dataDir }) }),
  handlers: (use, env) => fileHandlers(use('attachments', 'Attachments'), env.dataDir)
}
