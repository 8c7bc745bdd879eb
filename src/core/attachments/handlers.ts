import type { Contract } from '../../shared/bridge/contract'
import type { AttachmentService } from './attachment-service'
import { imageLimitFor } from '../files'
import type { Implementation } from '../bridge/router'
import { appendTransfer, createTransfer } from '../store/transfers'

type FileHandlers = Pick<Implementation<Contract>, Extract<keyof Contract, `files.${string}`>>

export function fileHandlers(attachments: () => AttachmentService, dataDir: string): FileHandlers {
  return {
    'files.upload': ({ name, mimeType, dataBase64 }) => attachments().upload({ name, ...(mimeType ? { mimeType } : {}), bytes: Buffer.from(dataBase64, 'base64') }),
    'files.transferCreate': () => ({ transferId: createTransfer(dataDir) }),
    'files.transferAppend': ({ transferId, chunk }) => ({ bytes: appendTransfer(dataDir, transferId, chunk) }),
    'files.get': ({ fileIds }) => attachments().get(fileIds),
    'files.imageLimit': ({ providerId }) => imageLimitFor(providerId)
  }
}
