import type { Generated, Insertable, Selectable, Updateable } from 'kysely'

/**
 * Table types: one `Database` interface of table interfaces (the kysely idea). They stay in
 * core/store; repositories turn rows into shared DTOs. JSON columns are TEXT; booleans are
 * 0/1 (SQLite has neither).
 */
export interface AgentsTable {
  id: string
  name: string
  avatar: string | null
  description: string | null
  system_prompt: string
  provider_id: string | null
  model_id: string | null
  parameters: string
  tags: string
  created_at: number
  updated_at: number
}

export interface ConversationsTable {
  id: string
  agent_id: string
  title: string
  provider_id: string | null
  model_id: string | null
  parameters: string | null
  pinned: number
  created_at: number
  updated_at: number
}

export interface TopicsTable {
  id: string
  conversation_id: string
  title: string
  created_at: number
  updated_at: number
}

export interface MessagesTable {
  /** Insertion order; FTS5's rowid, and newest-first order for search. */
  seq: Generated<number>
  id: string
  conversation_id: string
  /** Copied from the conversation so search can be scoped to an agent inside the FTS index. */
  agent_id: string
  topic_id: string | null
  parent_id: string | null
  role: string
  content: string
  /** The text parts joined: what FTS5 indexes. */
  text: string
  reasoning: string | null
  tool_calls: string | null
  tool_results: string | null
  files: string | null
  grounding: string | null
  provider_id: string | null
  model_id: string | null
  usage: string | null
  cost: string | null
  speed: string | null
  error: string | null
  /** Migration 2: chosen options, history summary, translations as JSON. */
  meta: string | null
  status: string
  created_at: number
  updated_at: number
}

export interface FilesTable {
  id: string
  path: string
  name: string
  mime_type: string
  size: number
  sha256: string
  created_at: number
}

export interface ImageGenerationsTable {
  id: string
  prompt: string
  parameters: string
  provider_id: string
  model_id: string
  status: string
  results: string
  cost: string | null
  error: string | null
  created_at: number
  updated_at: number
}

export interface ProviderSettingsTable {
  provider_id: string
  enabled: number
  base_url: string | null
  proxy_url: string | null
  fetched_models: string
  fetched_at: number | null
  model_overrides: string
  updated_at: number
}

export interface UsageLogTable {
  id: string
  at: number
  scene: string
  operation: string | null
  mode: string | null
  location: string | null
  provider_id: string
  model_id: string
  conversation_id: string | null
  message_id: string | null
  usage: string | null
  cost: string | null
  cost_total: number | null
  currency: string | null
  total_tokens: number | null
  duration_ms: number | null
  /** The local API key that made the call (calls through the local API only). */
  api_key_id: string | null
  /** Migration 11: what the call asked for (UsageKind); older lines are chat. */
  kind: Generated<string>
}

export interface SettingsTable {
  key: string
  value: string
}

// Knowledge bases (migration 003). The chunks' text index (FTS5) and the per-base vector tables
// (vec0) are not here: they are virtual tables queried in raw SQL by repositories/knowledge-index.ts.
export interface KnowledgeBasesTable {
  id: string
  name: string
  description: string
  provider_id: string
  model_id: string
  dimensions: number | null
  chunk_size: number
  chunk_overlap: number
  created_at: number
  updated_at: number
}

export interface KbFilesTable {
  id: string
  kb_id: string
  name: string
  source: string
  path: string | null
  sha256: string | null
  size: number
  status: string
  stage: string
  chunked: number
  chunks_total: number
  chunks_done: number
  error: string | null
  flagged: string | null
  created_at: number
  updated_at: number
}

export interface KbChunksTable {
  id: Generated<number>
  kb_id: string
  file_id: string
  seq: number
  text: string
  heading: string | null
  page: number | null
  char_start: number
  char_end: number
  /** float32 little-endian, the exact vector; its sign bits are in the base's vec0 table. */
  embedding: Buffer | null
}

export interface KbAttachmentsTable {
  owner_kind: 'agent' | 'conversation'
  owner_id: string
  kb_id: string
}

// The knowledge evals (migration 003): datasets of questions and the runs over them.
export interface KbDatasetsTable {
  id: Generated<number>
  name: string
  description: Generated<string>
  created_at: number
}

export interface KbDatasetRecordsTable {
  id: Generated<number>
  dataset_id: number
  question: string
  ideal: string | null
  /** JSON: file names. */
  reference_files: Generated<string>
}

export interface KbEvalsTable {
  id: string
  kb_id: string
  dataset_id: number
  name: string
  description: Generated<string>
  k: number
  status: string
  done: Generated<number>
  total: Generated<number>
  recall: number | null
  mrr: number | null
  error: string | null
  /** JSON: { correctness }. */
  settings: Generated<string>
  created_at: number
  updated_at: number
}

export interface KbEvalRecordsTable {
  eval_id: string
  record_id: number
  question: string
  /** JSON: the chunks retrieved. */
  retrieved: string
  hit_rank: number | null
  recall: number
  reciprocal_rank: number
  answer: string | null
  /** 0/1; null: not judged. */
  correct: number | null
}

// Sync (migrations 007, 008, 010). Its capture triggers (on the synced tables above) are DDL in
// the migration; core/sync reaches these tables through kysely like the repositories do.
/** The one row (id 1) of this device's sync state. */
export interface SyncControlTable {
  id: Generated<number>
  /** Capture is on (0/1): the triggers note changes only then. */
  enabled: Generated<number>
  /** Sync is merging another device's changes (0/1): the triggers keep out (no echo). */
  applying: Generated<number>
  device_id: string | null
  device_name: string | null
  /** The saved sync settings (JSON). */
  config: string | null
  /** The number of this device's next segment. */
  next_seq: Generated<number>
}

/** A changed row's key, noted by the capture triggers (and for API keys by the sync service). */
export interface SyncOutboxTable {
  tbl: string
  key: string
  /** This device's wall clock (ms) at the change. */
  changed_at: number
}

/** Each synced record's clock stamps, per field. */
export interface SyncMetaTable {
  tbl: string
  key: string
  /** JSON: field → stamp. */
  hlcs: Generated<string>
  /** JSON: field → hash of its value. */
  hashes: Generated<string>
  /** The tombstone's stamp. */
  deleted: string | null
  /** Not yet in the store (0/1). */
  dirty: Generated<number>
  /** Migration 8: where the tombstone was first published (JSON). */
  gone_after: string | null
  /** Migration 10: per field edited here since last sent, the stamp it replaced (JSON). */
  bases: string | null
}

/** The newest segment merged from each device. */
export interface SyncSeenTable {
  device: string
  seq: number
}

/** A change that waits for its parent record (JSON). */
export interface SyncParkedTable {
  tbl: string
  key: string
  change: string
}

/** Migration 10: an edit of this device's that a later one from another device replaced (the newest 100). */
export interface SyncReplacedTable {
  id: Generated<number>
  tbl: string
  key: string
  field: string
  /** JSON values. */
  replaced: string
  kept: string
  kept_by: string
  at: number
}

export interface Database {
  agents: AgentsTable
  conversations: ConversationsTable
  topics: TopicsTable
  messages: MessagesTable
  files: FilesTable
  image_generations: ImageGenerationsTable
  provider_settings: ProviderSettingsTable
  usage_log: UsageLogTable
  settings: SettingsTable
  knowledge_bases: KnowledgeBasesTable
  kb_files: KbFilesTable
  kb_chunks: KbChunksTable
  kb_attachments: KbAttachmentsTable
  kb_datasets: KbDatasetsTable
  kb_dataset_records: KbDatasetRecordsTable
  kb_evals: KbEvalsTable
  kb_eval_records: KbEvalRecordsTable
  sync_control: SyncControlTable
  sync_outbox: SyncOutboxTable
  sync_meta: SyncMetaTable
  sync_seen: SyncSeenTable
  sync_parked: SyncParkedTable
  sync_replaced: SyncReplacedTable
}

export type AgentRow = Selectable<AgentsTable>
export type ConversationRow = Selectable<ConversationsTable>
export type TopicRow = Selectable<TopicsTable>
export type MessageRow = Selectable<MessagesTable>
export type NewMessageRow = Insertable<MessagesTable>
export type MessageUpdate = Updateable<MessagesTable>
export type FileRow = Selectable<FilesTable>
export type ImageGenerationRow = Selectable<ImageGenerationsTable>
export type ProviderSettingsRow = Selectable<ProviderSettingsTable>
export type UsageLogRow = Selectable<UsageLogTable>
export type SyncMetaRow = Selectable<SyncMetaTable>
export type SyncReplacedRow = Selectable<SyncReplacedTable>
export type KbEvalRow = Selectable<KbEvalsTable>
