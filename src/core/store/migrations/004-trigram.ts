import type { Migration } from './migration'

/**
 * A trigram index beside the word index. unicode61 reads a run of Chinese or Japanese as one
 * "word", so 排序 inside 快速排序算法 was never found; trigrams find any substring of three or
 * more characters. External content (the text stays in `messages`), so only the index is added.
 */
export const trigram: Migration = {
  version: 4,
  name: 'trigram search index',
  up(db) {
    db.exec(`
      CREATE VIRTUAL TABLE messages_trigram USING fts5(
        text,
        content = 'messages', content_rowid = 'seq',
        tokenize = 'trigram remove_diacritics 1'
      );
      INSERT INTO messages_trigram(messages_trigram) VALUES ('rebuild');
      CREATE TRIGGER messages_trigram_insert AFTER INSERT ON messages BEGIN
        INSERT INTO messages_trigram(rowid, text) VALUES (new.seq, new.text);
      END;
      CREATE TRIGGER messages_trigram_delete AFTER DELETE ON messages BEGIN
        INSERT INTO messages_trigram(messages_trigram, rowid, text) VALUES ('delete', old.seq, old.text);
      END;
      CREATE TRIGGER messages_trigram_update AFTER UPDATE OF text ON messages BEGIN
        INSERT INTO messages_trigram(messages_trigram, rowid, text) VALUES ('delete', old.seq, old.text);
        INSERT INTO messages_trigram(rowid, text) VALUES (new.seq, new.text);
      END;
    `)
  }
}
