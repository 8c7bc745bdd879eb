import { initial } from './001-initial'
import { messageMeta } from './002-message-meta'
import { knowledge } from './003-knowledge'
import { trigram } from './004-trigram'
import { sourceScore } from './005-source-score'
import { usageApiKey } from './006-usage-api-key'
import { sync } from './007-sync'
import { syncTombstoneOrigin } from './008-sync-tombstone-origin'
import { replySourcesInGrounding } from './009-reply-sources-in-grounding'
import { syncReplacedEdits } from './010-sync-replaced-edits'
import { usageKind } from './011-usage-kind'
import type { Migration } from './migration'

/** Every migration, in order. Add a file `NNN-name.ts` and one line here; never edit a shipped one. */
export const migrations: readonly Migration[] = [initial, messageMeta, knowledge, trigram, sourceScore, usageApiKey, sync, syncTombstoneOrigin, replySourcesInGrounding, syncReplacedEdits, usageKind]

export const LATEST_SCHEMA_VERSION = migrations[migrations.length - 1]!.version
