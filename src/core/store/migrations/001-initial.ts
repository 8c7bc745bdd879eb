import type { Migration } from './migration'

export const initial: Migration = {
  version: 1,
  name: 'initial',
  up(db) {
    db.exec(`
      CREATE TABLE agents (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        avatar TEXT,
        description TEXT,
        system_prompt TEXT NOT NULL DEFAULT '',
        provider_id TEXT,
        model_id TEXT,
        parameters TEXT NOT NULL DEFAULT '{}',
        tags TEXT NOT NULL DEFAULT '[]',
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
        title TEXT NOT NULL DEFAULT '',
        provider_id TEXT,
        model_id TEXT,
        parameters TEXT,
        pinned INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX conversations_by_agent ON conversations(agent_id, updated_at DESC);

      CREATE TABLE topics (
        id TEXT PRIMARY KEY,
        conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        title TEXT NOT NULL DEFAULT '',
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX topics_by_conversation ON topics(conversation_id, created_at);

      CREATE TABLE messages (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        agent_id TEXT NOT NULL,
        topic_id TEXT REFERENCES topics(id) ON DELETE SET NULL,
        parent_id TEXT,
        role TEXT NOT NULL CHECK (role IN ('system','user','assistant','tool','function')),
        content TEXT NOT NULL DEFAULT '[]',
        text TEXT NOT NULL DEFAULT '',
        reasoning TEXT,
        tool_calls TEXT,
        tool_results TEXT,
        files TEXT,
        grounding TEXT,
        provider_id TEXT,
        model_id TEXT,
        usage TEXT,
        cost TEXT,
        speed TEXT,
        error TEXT,
        status TEXT NOT NULL CHECK (status IN ('streaming','complete','interrupted','error')),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX messages_by_conversation ON messages(conversation_id, created_at, seq);
      CREATE INDEX messages_streaming ON messages(status) WHERE status = 'streaming';

      -- Search: the conversation and agent ids are indexed columns so a scoped search is an
      -- intersection of posting lists inside FTS5, not a filter over every match.
      CREATE VIRTUAL TABLE messages_fts USING fts5(
        text, conversation_id, agent_id,
        content = 'messages', content_rowid = 'seq',
        tokenize = 'unicode61 remove_diacritics 2'
      );
      CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
        INSERT INTO messages_fts(rowid, text, conversation_id, agent_id) VALUES (new.seq, new.text, new.conversation_id, new.agent_id);
      END;
      CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
        INSERT INTO messages_fts(messages_fts, rowid, text, conversation_id, agent_id) VALUES ('delete', old.seq, old.text, old.conversation_id, old.agent_id);
      END;
      -- Only when indexed columns change: a streaming flush that rewrites the text re-indexes,
      -- a status or usage update does not.
      CREATE TRIGGER messages_fts_update AFTER UPDATE OF text, conversation_id, agent_id ON messages BEGIN
        INSERT INTO messages_fts(messages_fts, rowid, text, conversation_id, agent_id) VALUES ('delete', old.seq, old.text, old.conversation_id, old.agent_id);
        INSERT INTO messages_fts(rowid, text, conversation_id, agent_id) VALUES (new.seq, new.text, new.conversation_id, new.agent_id);
      END;

      CREATE TABLE files (
        id TEXT PRIMARY KEY,
        path TEXT NOT NULL,
        name TEXT NOT NULL,
        mime_type TEXT NOT NULL,
        size INTEGER NOT NULL,
        sha256 TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX files_by_hash ON files(sha256);

      CREATE TABLE image_generations (
        id TEXT PRIMARY KEY,
        prompt TEXT NOT NULL,
        parameters TEXT NOT NULL DEFAULT '{}',
        provider_id TEXT NOT NULL,
        model_id TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('Pending','Processing','Success','Error')),
        results TEXT NOT NULL DEFAULT '[]',
        cost TEXT,
        error TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX image_generations_by_time ON image_generations(created_at DESC);

      CREATE TABLE provider_settings (
        provider_id TEXT PRIMARY KEY,
        enabled INTEGER NOT NULL DEFAULT 0,
        base_url TEXT,
        proxy_url TEXT,
        fetched_models TEXT NOT NULL DEFAULT '[]',
        fetched_at INTEGER,
        model_overrides TEXT NOT NULL DEFAULT '{}',
        updated_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE usage_log (
        id TEXT PRIMARY KEY,
        at INTEGER NOT NULL,
        scene TEXT NOT NULL,
        operation TEXT,
        mode TEXT,
        location TEXT,
        provider_id TEXT NOT NULL,
        model_id TEXT NOT NULL,
        conversation_id TEXT,
        message_id TEXT,
        usage TEXT,
        cost TEXT,
        cost_total REAL,
        currency TEXT,
        total_tokens INTEGER,
        duration_ms INTEGER
      ) STRICT;
      CREATE INDEX usage_log_by_time ON usage_log(at);

      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;
    `)
  }
}
