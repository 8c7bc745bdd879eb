import type { Contract } from '../../../shared/bridge/contract'
import { needs } from '../../services-access'
import type { CoreContext } from '../../context'
import { imageLimitFor } from '../../files'
import type { Implementation } from '../router'
import { appendTransfer, createTransfer } from '../../store/transfers'

type FileHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `files.${string}`>>

export function fileHandlers(ctx: CoreContext): FileHandlers {
  const attachments = needs(ctx, 'attachments', 'Attachments')
  return {
    'files.upload': ({ name, mimeType, dataBase64 }) => attachments().upload({ name, ...(mimeType ? { mimeType } : {}), bytes: Buffer.from(dataBase64, 'base64') }),
    'files.transferCreate': () => ({ transferId: createTransfer(ctx.dataDir) }),
    'files.transferAppend': ({ transferId, chunk }) => ({ bytes: appendTransfer(ctx.dataDir, transferId, chunk) }),
    'files.get': ({ fileIds }) => attachments().get(fileIds),
    'files.imageLimit': ({ providerId }) => imageLimitFor(providerId)
  }
}
