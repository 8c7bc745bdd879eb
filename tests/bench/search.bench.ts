import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openStore } from '../../src/core/store'
import { medianMs, report } from './util'

// `npm run bench -- search` (issue 16): the app's message search against plain SQLite FTS5 on the
// same rows, in the same run. Word queries: the app (FTS5 unicode61 newest-300 candidates, bm25
// in TypeScript, snippets, hit rows) vs a plain FTS5 table ranked by its own bm25 (ORDER BY rank).
// CJK substrings: the app (trigram index; 1–2 characters by a bounded scan) vs a plain FTS5
// trigram table (MATCH for 3+ characters, its LIKE for 2). Rows: SEARCH_BENCH_MESSAGES
// (default 1,000,000; CI and quick checks use fewer).
const TOTAL = Number(process.env['SEARCH_BENCH_MESSAGES'] ?? 1_000_000)
const CONVERSATIONS = 2_000
const AGENTS = 20

// Zipf-like vocabulary, as in real chats; every fifth message Chinese (no spaces).
const VOCAB = Array.from({ length: 5_000 }, (_, i) => `w${i.toString(36)}`)
const COMMON = ['the', 'model', 'answer', 'code', 'error', 'python', 'function', 'data', 'image', 'time']
let seed = 7
const rand = () => (seed = (seed * 1_103_515_245 + 12_345) >>> 0) / 2 ** 32
const word = () => (rand() < 0.3 ? COMMON[Math.floor(rand() * COMMON.length)]! : VOCAB[Math.floor(VOCAB.length * rand() ** 3)]!)
const HAN = Array.from({ length: 400 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 97) % 20000)))
const hanWord = () => Array.from({ length: 2 + Math.floor(rand() * 3) }, () => HAN[Math.floor(HAN.length * rand() ** 2)]!).join('')
const text = (i: number) =>
  i % 5 === 4 ? Array.from({ length: 3 + (i % 7) }, hanWord).join('') : Array.from({ length: 4 + (i % 9) }, word).join(' ')

/** The median over queries of each query's median time (ms). */
async function medianQuery(queries: string[], run: (q: string) => unknown, runs = 7): Promise<number> {
  const times: number[] = []
  for (const q of queries) times.push(await medianMs(() => run(q), runs, 1))
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]!
}

export default async function searchBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-search-bench-'))
  try {
    const { store } = openStore({ dataDir: dir, dailyBackupMs: 0 })
    const db = store.db.sqlite
    // Bulk load: one transaction, no journal. The index triggers are set aside while the rows go
    // in and each index is built once with 'rebuild' (row-by-row triggers into two FTS5 tables
    // in one transaction were ~7× slower), then the triggers are put back as they were.
    db.pragma('journal_mode = OFF')
    db.pragma('synchronous = OFF')
    db.pragma('cache_size = -262144')
    const triggers = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN ('messages_fts_insert', 'messages_trigram_insert')").all() as Array<{ name: string; sql: string }>
    const insert = db.prepare(
      `INSERT INTO messages (id, conversation_id, agent_id, role, content, text, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'complete', ?, ?)`
    )
    let started = performance.now()
    db.transaction(() => {
      for (const t of triggers) db.exec(`DROP TRIGGER ${t.name}`)
      for (let a = 0; a < AGENTS; a++) store.agents.create({ id: `agent${a}`, name: `Agent ${a}` })
      for (let c = 0; c < CONVERSATIONS; c++) store.conversations.create({ id: `conv${c}`, agentId: `agent${c % AGENTS}`, title: `Chat ${c}` })
      const t0 = Date.now() - TOTAL * 1000
      const perConversation = Math.ceil(TOTAL / CONVERSATIONS)
      for (let i = 0; i < TOTAL; i++) {
        const body = text(i)
        // Each conversation's messages in a row, as a real history grows: the conversation index appends.
        const c = Math.floor(i / perConversation)
        insert.run(`m${String(i).padStart(8, '0')}`, `conv${c}`, `agent${c % AGENTS}`, i % 2 ? 'assistant' : 'user', `[{"type":"text","text":${JSON.stringify(body)}}]`, body, t0 + i * 1000, t0 + i * 1000)
      }
    })()
    const rowSeconds = (performance.now() - started) / 1000
    started = performance.now()
    db.transaction(() => {
      db.exec("INSERT INTO messages_fts(messages_fts) VALUES ('rebuild'); INSERT INTO messages_trigram(messages_trigram) VALUES ('rebuild')")
      for (const t of triggers) db.exec(t.sql)
    })()
    const indexSeconds = (performance.now() - started) / 1000
    // The plain baseline: the same texts in ordinary FTS5 tables (rowid = the message's seq).
    started = performance.now()
    db.exec(`CREATE VIRTUAL TABLE plain_words USING fts5(text);
             CREATE VIRTUAL TABLE plain_trigram USING fts5(text, tokenize = 'trigram');
             INSERT INTO plain_words(rowid, text) SELECT seq, text FROM messages;
             INSERT INTO plain_trigram(rowid, text) SELECT seq, text FROM messages;`)
    const plainSeconds = (performance.now() - started) / 1000
    console.log(
      `generated ${TOTAL.toLocaleString('en')} messages in ${rowSeconds.toFixed(1)} s, the app's word + trigram indexes in ${indexSeconds.toFixed(1)} s; ` +
        `plain FTS5 copies in ${plainSeconds.toFixed(1)} s`
    )
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = FULL')
    db.pragma('cache_size = -2000')

    const words = ['python', 'error code', 'w1a', 'model answer', 'pyth', 'data function', 'w2k', 'image', 'w10 the', 'w3']
    const plainWordQuery = db.prepare("SELECT rowid, snippet(plain_words, 0, '[', ']', '…', 12) FROM plain_words WHERE plain_words MATCH ? ORDER BY rank LIMIT 50")
    const ftsQuery = (q: string) =>
      q
        .split(' ')
        .map((w, i, all) => `"${w}"${i === all.length - 1 && w.length >= 3 ? ' *' : ''}`)
        .join(' ')
    let hits = 0
    for (const q of words) {
      hits += store.search.search(q).length
    }
    if (hits === 0) throw new Error('no word hits: the bench would measure nothing')
    const wordOurs = await medianQuery(words, (q) => store.search.search(q))
    const wordPlain = await medianQuery(words, (q) => plainWordQuery.all(ftsQuery(q)))
    report(`word query over ${(TOTAL / 1e6).toFixed(2)}M (median)`, wordOurs, 'plain FTS5 bm25 (ORDER BY rank)', wordPlain, 'ms', '< 50 ms')

    // CJK: substrings of three characters and more, and two-character ones.
    // Substrings of real messages at different ages (common and rare), plus ones that occur nowhere.
    const textOf = db.prepare('SELECT text FROM messages WHERE seq = ?').pluck()
    const at = (k: number) => textOf.get(Math.floor((TOTAL / 5 - 1) * k) * 5 + 5) as string
    const han3 = [at(0), at(0.1), at(0.3), at(0.5), at(0.7), at(0.9), at(1)].map((t, i) => t.slice(i % 3, (i % 3) + 3)).concat([HAN[398]! + HAN[399]! + HAN[397]!])
    const han2 = [at(0), at(0.2), at(0.5), at(0.8), at(1)].map((t, i) => t.slice(i % 2, (i % 2) + 2)).concat([HAN[398]! + HAN[399]!])
    const plainTriMatch = db.prepare('SELECT rowid FROM plain_trigram WHERE plain_trigram MATCH ? ORDER BY rank LIMIT 50')
    const plainTriLike = db.prepare('SELECT rowid FROM plain_trigram WHERE text LIKE ? LIMIT 50')
    let hanHits = 0
    for (const q of [...han3, ...han2]) hanHits += store.search.search(q).length
    if (hanHits === 0) throw new Error('no CJK hits: the bench would measure nothing')
    const tri = await medianQuery(han3, (q) => store.search.search(q))
    const triPlain = await medianQuery(han3, (q) => plainTriMatch.all(`"${q}"`))
    report(`CJK substring, 3 chars (median)`, tri, 'plain FTS5 trigram MATCH', triPlain, 'ms', '< 50 ms')
    const two = await medianQuery(han2, (q) => store.search.search(q), 5)
    const twoPlain = await medianQuery(han2, (q) => plainTriLike.all(`%${q}%`), 5)
    report(`CJK substring, 2 chars (median)`, two, 'plain FTS5 trigram LIKE (full scan)', twoPlain, 'ms', '< 50 ms')
    store.close()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
