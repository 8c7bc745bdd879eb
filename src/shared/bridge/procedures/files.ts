import { z } from 'zod'
import { call } from '../define'
import type { FileRecord } from '../../data/file-record'

/** An uploaded file as the composer shows it: stored record, what it is, and what it costs in context. */
export interface Attachment {
  file: FileRecord
  kind: 'image' | 'pdf' | 'text'
  /** Estimated tokens the extracted text adds to the conversation (0 for images). */
  tokens: number
  /** The extracted text was cut at the size cap. */
  truncated: boolean
}

export interface ImageLimitInfo {
  maxEdge: number
  maxBytes: number
}

const id = z.string().min(1).max(200)

export const fileProcedures = {
  /** Stores a file in the data folder under its hash and extracts its text (text, Markdown, code, PDF). */
  'files.upload': call<Attachment>()(
    z
      .object({
        name: z.string().min(1).max(500),
        mimeType: z.string().max(200).optional(),
        /** The bytes, base64-encoded (≤ 20 MB decoded; the service checks the exact size). */
        dataBase64: z.string().max(28_000_000)
      })
      .strict()
  ),
  /**
   * The one upload path for files the core reads later (knowledge files; import files): a transfer
   * file in the data folder, named by its id. Browser mode fills it with one streamed HTTP POST
   * (`data/upload`); the desktop with `files.transferAppend` pieces over IPC (bytes, not base64).
   */
  'files.transferCreate': call<{ transferId: string }>()(z.object({}).strict()),
  /** One piece (≤ 8 MB) appended to a transfer; the size so far. Over the limits, the transfer is removed. */
  'files.transferAppend': call<{ bytes: number }>()(
    z
      .object({
        transferId: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/),
        chunk: z.instanceof(Uint8Array).refine((c) => c.byteLength <= 8 * 1024 * 1024, 'A piece is at most 8 MB.')
      })
      .strict()
  ),
  /** Attachments by id (a message's `files`), in the same order; unknown ids are left out. */
  'files.get': call<Attachment[]>()(z.object({ fileIds: z.array(id).max(64) }).strict()),
  /** The largest image a provider takes inline; the composer scales bigger ones down first. */
  'files.imageLimit': call<ImageLimitInfo>()(z.object({ providerId: id.optional() }).strict())
} as const
