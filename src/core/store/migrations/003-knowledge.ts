import type { Migration } from './migration'

/**
 * Knowledge bases, their files and chunks, datasets and evals. Vectors live in one vec0 table
 * per knowledge base (`kb_vec_<id>`, created when its dimension is first known, since vec0 fixes
 * it per table); the chunk text is in `kb_chunks_fts`. A chunk reaches both only when its whole
 * file is embedded, in one transaction, so nothing half-indexed is ever searchable.
 */
export const knowledge: Migration = {
  version: 3,
  name: 'knowledge',
  up(db) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS knowledge_bases (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        provider_id TEXT NOT NULL,
        model_id TEXT NOT NULL,
        dimensions INTEGER,
        chunk_size INTEGER NOT NULL,
        chunk_overlap INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE IF NOT EXISTS kb_files (
        id TEXT PRIMARY KEY,
        kb_id TEXT NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        source TEXT NOT NULL,
        path TEXT,
        sha256 TEXT,
        size INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL,
        stage TEXT NOT NULL,
        chunked INTEGER NOT NULL DEFAULT 0,
        chunks_total INTEGER NOT NULL DEFAULT 0,
        chunks_done INTEGER NOT NULL DEFAULT 0,
        error TEXT,
        flagged TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX IF NOT EXISTS kb_files_by_kb ON kb_files(kb_id, created_at);
      CREATE INDEX IF NOT EXISTS kb_files_pending ON kb_files(status) WHERE status IN ('Pending', 'Processing');

      CREATE TABLE IF NOT EXISTS kb_chunks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kb_id TEXT NOT NULL,
        file_id TEXT NOT NULL REFERENCES kb_files(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        text TEXT NOT NULL,
        heading TEXT,
        page INTEGER,
        char_start INTEGER NOT NULL,
        char_end INTEGER NOT NULL,
        embedding BLOB
      ) STRICT;
      CREATE INDEX IF NOT EXISTS kb_chunks_by_file ON kb_chunks(file_id, seq);

      -- kb_id is indexed (not UNINDEXED) so a query scoped to one base stays an index lookup.
      CREATE VIRTUAL TABLE IF NOT EXISTS kb_chunks_fts USING fts5(text, heading, kb_id, tokenize = 'unicode61 remove_diacritics 2');

      CREATE TABLE IF NOT EXISTS kb_attachments (
        owner_kind TEXT NOT NULL CHECK (owner_kind IN ('agent', 'conversation')),
        owner_id TEXT NOT NULL,
        kb_id TEXT NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
        PRIMARY KEY (owner_kind, owner_id, kb_id)
      ) STRICT;

      CREATE TABLE IF NOT EXISTS kb_reply_sources (
        message_id TEXT NOT NULL,
        n INTEGER NOT NULL,
        kb_id TEXT NOT NULL,
        file_id TEXT NOT NULL,
        file_name TEXT NOT NULL,
        chunk_id INTEGER NOT NULL,
        heading TEXT,
        page INTEGER,
        char_start INTEGER NOT NULL,
        char_end INTEGER NOT NULL,
        excerpt TEXT NOT NULL,
        PRIMARY KEY (message_id, n)
      ) STRICT;

      CREATE TABLE IF NOT EXISTS kb_datasets (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        created_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE IF NOT EXISTS kb_dataset_records (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        dataset_id INTEGER NOT NULL REFERENCES kb_datasets(id) ON DELETE CASCADE,
        question TEXT NOT NULL CHECK (length(question) > 0),
        ideal TEXT,
        reference_files TEXT NOT NULL DEFAULT '[]'
      ) STRICT;
      CREATE INDEX IF NOT EXISTS kb_dataset_records_by_dataset ON kb_dataset_records(dataset_id, id);

      CREATE TABLE IF NOT EXISTS kb_evals (
        id TEXT PRIMARY KEY,
        kb_id TEXT NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
        dataset_id INTEGER NOT NULL REFERENCES kb_datasets(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        k INTEGER NOT NULL,
        status TEXT NOT NULL,
        done INTEGER NOT NULL DEFAULT 0,
        total INTEGER NOT NULL DEFAULT 0,
        recall REAL,
        mrr REAL,
        error TEXT,
        settings TEXT NOT NULL DEFAULT '{}',
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE IF NOT EXISTS kb_eval_records (
        eval_id TEXT NOT NULL REFERENCES kb_evals(id) ON DELETE CASCADE,
        record_id INTEGER NOT NULL,
        question TEXT NOT NULL,
        retrieved TEXT NOT NULL,
        hit_rank INTEGER,
        recall REAL NOT NULL,
        reciprocal_rank REAL NOT NULL,
        answer TEXT,
        correct INTEGER,
        PRIMARY KEY (eval_id, record_id)
      ) STRICT;
    `)
  }
}
