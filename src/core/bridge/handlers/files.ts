import type { Contract } from '../../../shared/bridge/contract'
import { notReady as notReadyFor } from '../not-ready'
import type { CoreContext } from '../../context'
import { imageLimitFor } from '../../files'
import type { AttachmentService } from '../../services/attachment-service'
import type { Implementation } from '../router'

type FileHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `files.${string}`>>


export function fileHandlers(ctx: CoreContext): FileHandlers {
  const attachments = (): AttachmentService => ctx.attachments ?? (() => { throw notReadyFor(ctx, 'Attachments') })()
  return {
    'files.upload': ({ name, mimeType, dataBase64 }) => attachments().upload({ name, ...(mimeType ? { mimeType } : {}), bytes: Buffer.from(dataBase64, 'base64') }),
    'files.get': ({ fileIds }) => attachments().get(fileIds),
    'files.imageLimit': ({ providerId }) => imageLimitFor(providerId)
  }
}
