import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Attachment } from '../../shared/bridge/procedures/files'
import type { FileRecord } from '../../shared/data/file-record'
import { AppErrorException } from '../../shared/errors/app-error'
import { countTokens, extractText, fileKind, MAX_CONTEXT_TOKENS, MAX_UPLOAD_BYTES, mimeTypeFor, type FileKind } from '../files'
import type { FilesRepository } from '../store/repositories/files'
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../files/private-files'

export interface UploadInput {
  name: string
  mimeType?: string
  bytes: Uint8Array
}

/** Extracted text sent to the model for one attached file. */
export interface FileContext {
  fileId: string
  name: string
  text: string
}

/** Ends a cut text, so the model (and `get`) know the file goes on. */
export const TRUNCATED_MARKER = '\n[… the rest of this file was cut at the size cap]'

const uploadFailed = (message: string) => new AppErrorException({ errorType: 'FileUploadError', status: 400, message: `Upload failed: ${message}` })

/** Cuts text to about `maxTokens`, at a line break when one is near, so the model never sees half a word. */
function cap(text: string, maxTokens: number): { text: string; truncated: boolean } {
  if (countTokens(text) <= maxTokens) return { text, truncated: false }
  // Shrink by the measured ratio: CJK text is ~1 char a token, Latin ~4.
  let end = Math.floor(text.length * (maxTokens / countTokens(text)))
  while (end > 0 && countTokens(text.slice(0, end)) > maxTokens) end = Math.floor(end * 0.95)
  end = Math.max(0, end - TRUNCATED_MARKER.length)
  const newline = text.lastIndexOf('\n', end)
  const cut = newline > end * 0.9 ? newline : end
  return { text: text.slice(0, cut) + TRUNCATED_MARKER, truncated: true }
}

/**
 * Uploaded files: bytes in `<dataDir>/files/<sha256>.<ext>` (one copy per content), metadata in
 * the store, extracted text next to the bytes (`<sha256>.txt`) so sending a message never
 * re-parses a PDF.
 */
export class AttachmentService {
  private readonly folder: string

  constructor(
    private readonly deps: { files: FilesRepository; dataDir: string },
    private readonly limits = { maxBytes: MAX_UPLOAD_BYTES, maxTokens: MAX_CONTEXT_TOKENS }
  ) {
    this.folder = join(deps.dataDir, 'files')
  }

  async upload(input: UploadInput): Promise<Attachment> {
    const kind = fileKind(input.name, input.mimeType)
    if (!kind) throw uploadFailed(`${input.name} is not a supported file (images, text, Markdown, code and PDF are).`)
    if (input.bytes.length === 0) throw uploadFailed(`${input.name} is empty.`)
    if (input.bytes.length > this.limits.maxBytes)
      throw uploadFailed(`${input.name} is ${(input.bytes.length / 1048576).toFixed(1)} MB; the limit is ${Math.round(this.limits.maxBytes / 1048576)} MB.`)
    const sha256 = createHash('sha256').update(input.bytes).digest('hex')
    // Extract before storing anything: a file we cannot read is refused without leaving litter.
    const extracted = kind === 'image' ? undefined : cap(await extractText(input.bytes, kind, input.name), this.limits.maxTokens)
    const ext = /\.([a-z0-9]{1,10})$/i.exec(input.name)?.[1]?.toLowerCase()
    // `<sha256>.txt` is the extracted text's: a `.txt` file kept there was overwritten by its own
    // text (line endings made `\n`), and no longer matched its sha256 anywhere, sync included.
    const relative = `files/${sha256}${ext && ext !== 'txt' ? `.${ext}` : ''}`
    try {
      mkdirSync(this.folder, { recursive: true, mode: PRIVATE_DIR_MODE })
      const absolute = join(this.deps.dataDir, relative)
      if (!existsSync(absolute)) writeFileSync(absolute, input.bytes, { mode: PRIVATE_FILE_MODE })
      if (extracted) writeFileSync(this.textPath(sha256), extracted.text, { mode: PRIVATE_FILE_MODE })
    } catch (error) {
      throw uploadFailed(`the file could not be stored in the data folder (${(error as NodeJS.ErrnoException).code ?? 'write error'}).`)
    }
    const existing = this.deps.files.findBySha256(sha256)
    const file =
      existing && existing.name === input.name
        ? existing
        : this.deps.files.add({ path: relative, name: input.name, mimeType: mimeTypeFor(input.name, input.mimeType, kind), size: input.bytes.length, sha256 })
    return { file, kind, tokens: extracted ? countTokens(extracted.text) : 0, truncated: extracted?.truncated ?? false }
  }

  /** Attachments by id, for the chips under a message; unknown ids are skipped. */
  get(fileIds: readonly string[]): Attachment[] {
    const out: Attachment[] = []
    for (const id of fileIds) {
      const file = this.deps.files.get(id)
      if (!file) continue
      const kind: FileKind = fileKind(file.name, file.mimeType) ?? 'text'
      const text = kind === 'image' ? undefined : this.readText(file)
      out.push({ file, kind, tokens: text ? countTokens(text) : 0, truncated: text?.endsWith(TRUNCATED_MARKER) ?? false })
    }
    return out
  }

  /** The extracted text of each file, for the chat request (images and missing files are skipped). */
  context(fileIds: readonly string[]): FileContext[] {
    const out: FileContext[] = []
    for (const id of fileIds) {
      const file = this.deps.files.get(id)
      if (!file || fileKind(file.name, file.mimeType) === 'image') continue
      const text = this.readText(file)
      if (text !== undefined) out.push({ fileId: id, name: file.name, text })
    }
    return out
  }

  private textPath(sha256: string): string {
    return join(this.folder, `${sha256}.txt`)
  }

  private readText(file: FileRecord): string | undefined {
    try {
      return readFileSync(this.textPath(file.sha256), 'utf8')
    } catch {
      // No extracted text for this file (not a text file, or not extracted yet): the caller sends none.
      return undefined
    }
  }
}

