import type { SqliteDb } from './database'

/**
 * Messages' full-text indexes (messages_fts, messages_trigram: migrations 001 and 004) are kept
 * by triggers, one row at a time. Inside a long transaction that costs ~200 µs a message: every
 * trigger statement on an FTS5 table flushes FTS5's pending terms as a new segment, which are
 * then merged again and again. Filling the same index from one INSERT … SELECT costs ~10× less.
 *
 * `withMessageIndexDeferred` runs `write` in a transaction with the indexes of the messages it
 * adds deferred (when the caller says it carries DEFER_FROM messages or more; fewer go through the
 * triggers): the index triggers are set aside, rows that were there before keep theirs (as
 * temporary triggers limited to them), and the rows added are indexed in one pass before the
 * transaction ends. The result is the same index the triggers would have built, and it is never
 * seen half done (one transaction; a throw rolls the triggers back too). If the triggers are not
 * shaped as expected (a later migration changed them), `write` simply runs with them in place.
 */
export function withMessageIndexDeferred<T>(db: SqliteDb, write: () => T, messages = Infinity): T {
  // A few messages cost less through their triggers than setting them aside: dropping and
  // creating triggers changes the schema, which makes SQLite prepare every statement again.
  if (messages < DEFER_FROM) return db.transaction(write)()
  return db.transaction(() => {
    const plan = deferPlan(db)
    if (!plan) return write()
    // AUTOINCREMENT: a row added from here on has a seq above every seq present now.
    const before = (db.prepare('SELECT COALESCE(MAX(seq), 0) AS seq FROM messages').get() as { seq: number }).seq
    for (const t of plan.triggers) db.exec(`DROP TRIGGER main.${t.name}`)
    for (const t of plan.triggers) if (t.kind !== 'insert') db.exec(t.sql.replace(HEADER, `CREATE TEMP TRIGGER $1 $2 ON main.messages WHEN old.seq <= ${before} BEGIN`))
    const result = write()
    for (const t of plan.triggers) if (t.kind !== 'insert') db.exec(`DROP TRIGGER temp.${t.name}`)
    for (const fill of plan.fills) db.prepare(fill).run(before)
    for (const t of plan.triggers) db.exec(t.sql)
    return result
  })()
}

/** Messages a write adds or changes from which deferring their indexes pays (`withMessageIndexDeferred`'s third argument). */
export const DEFER_FROM = 32

/** The six index triggers (all of them, or none are touched). */
export const MESSAGE_INDEX_TRIGGERS = ['messages_fts_insert', 'messages_fts_delete', 'messages_fts_update', 'messages_trigram_insert', 'messages_trigram_delete', 'messages_trigram_update'] as const

const HEADER = /^CREATE TRIGGER (\w+) (AFTER (?:DELETE|UPDATE OF [\w, ]+)) ON messages BEGIN/
const INSERT_BODY = /^CREATE TRIGGER \w+ AFTER INSERT ON messages BEGIN\s*INSERT INTO (\w+)\(([\w, ]+)\) VALUES \(([\w., ]+)\);\s*END$/

interface Plan {
  triggers: Array<{ name: string; kind: 'insert' | 'delete' | 'update'; sql: string }>
  /** One INSERT … SELECT per index, for the rows above a seq (the parameter). */
  fills: string[]
}

function deferPlan(db: SqliteDb): Plan | undefined {
  const rows = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'messages' AND (sql LIKE '%messages_fts%' OR sql LIKE '%messages_trigram%')`).all() as Array<{ name: string; sql: string }>
  if (rows.length !== MESSAGE_INDEX_TRIGGERS.length || !MESSAGE_INDEX_TRIGGERS.every((n) => rows.some((r) => r.name === n))) return undefined
  const plan: Plan = { triggers: [], fills: [] }
  for (const { name, sql } of rows) {
    const kind = name.endsWith('_insert') ? 'insert' : name.endsWith('_delete') ? 'delete' : 'update'
    const text = sql.trim()
    if (kind === 'insert') {
      const m = INSERT_BODY.exec(text)
      const values = m?.[3]!.split(',').map((v) => v.trim())
      if (!m || !values!.every((v) => /^new\.\w+$/.test(v))) return undefined
      plan.fills.push(`INSERT INTO ${m[1]}(${m[2]}) SELECT ${values!.map((v) => v.slice(4)).join(', ')} FROM messages WHERE seq > ? ORDER BY seq`)
    } else if (!HEADER.test(text) || (kind === 'delete') !== text.includes('AFTER DELETE')) return undefined
    plan.triggers.push({ name, kind, sql: text })
  }
  return plan
}
