import type { FileRecord, FileRecordInput } from '../../../shared/data/file-record'
import type { StoreDb } from '../database'
import { storeError, StoreErrorType } from '../errors'
import { newId } from '../ids'
import type { FileRow } from '../schema'

const fromRow = (row: FileRow): FileRecord => ({
  id: row.id,
  path: row.path,
  name: row.name,
  mimeType: row.mime_type,
  size: row.size,
  sha256: row.sha256,
  createdAt: row.created_at
})

/** Records of files kept in the data folder; the bytes themselves are the caller's to write. */
export class FilesRepository {
  constructor(private readonly db: StoreDb) {}

  add(input: FileRecordInput): FileRecord {
    // Paths are relative to the data folder, so the folder can move; an absolute or escaping path is a bug.
    if (input.path.startsWith('/') || /^[a-z]:/i.test(input.path) || input.path.split(/[\\/]/).includes('..'))
      throw storeError(StoreErrorType.Storage, `A file path must be inside the data folder: ${JSON.stringify(input.path)}`, 400)
    const record: FileRecord = { ...input, id: input.id ?? newId(), createdAt: Date.now() }
    this.db.run(
      this.db.q.insertInto('files').values({
        id: record.id,
        path: record.path,
        name: record.name,
        mime_type: record.mimeType,
        size: record.size,
        sha256: record.sha256,
        created_at: record.createdAt
      })
    )
    return record
  }

  get(id: string): FileRecord | undefined {
    const row = this.db.first(this.db.q.selectFrom('files').selectAll().where('id', '=', id))
    return row && fromRow(row)
  }

  /** A file with the same content, so an upload can be de-duplicated. */
  findBySha256(sha256: string): FileRecord | undefined {
    const row = this.db.first(this.db.q.selectFrom('files').selectAll().where('sha256', '=', sha256).limit(1))
    return row && fromRow(row)
  }

  list(): FileRecord[] {
    return this.db.all(this.db.q.selectFrom('files').selectAll().orderBy('created_at', 'desc')).map(fromRow)
  }

  delete(id: string): boolean {
    return this.db.run(this.db.q.deleteFrom('files').where('id', '=', id)) > 0
  }
}
