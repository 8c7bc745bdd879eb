/** A file the app keeps in its data folder (uploads, generated images). */
export interface FileRecord {
  id: string
  /** Relative to the app data folder, with forward slashes; never absolute. */
  path: string
  name: string
  mimeType: string
  size: number
  sha256: string
  createdAt: number
}

export type FileRecordInput = Omit<FileRecord, 'id' | 'createdAt'> & { id?: string }
