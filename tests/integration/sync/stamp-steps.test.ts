import { afterEach, describe, expect, it } from 'vitest'
import { ChangeLog, type MetaRow } from '../../../src/core/sync/change-log'
import { HybridClock } from '../../../src/core/sync/hlc'
import { openDevice, type Device } from './devices'

// Stamping a long history a few thousand records at a time, letting the event loop run between.

const opened: Device[] = []
afterEach(async () => {
  for (const d of opened.splice(0)) await d.close().catch(() => undefined)
})

async function setUp() {
  const d = await openDevice('A')
  opened.push(d)
  const { store, chat } = d.core.services()
  const db = store.db.sqlite
  // Capture on, nothing stamped by a round: the log under test does the stamping.
  db.prepare('UPDATE sync_control SET enabled = 1 WHERE id = 1').run()
  db.prepare('DELETE FROM sync_outbox').run()
  // Keys sorted one way, changes made the other: z… first, a… last.
  const ids = ['z-first', 'm-second', 'a-third'].map((title) => store.conversations.create({ agentId: chat.defaultAgent().id, title }).id)
  ids.forEach((id, i) => db.prepare('UPDATE sync_outbox SET changed_at = ? WHERE key = ?').run(1_700_000_000_000 + i * 1_000, id))
  const stampOf = (id: string) => JSON.parse((db.prepare("SELECT hlcs FROM sync_meta WHERE tbl = 'conversations' AND key = ?").get(id) as MetaRow).hlcs).title as string
  return { d, db, store, ids, stampOf, log: new ChangeLog(store.db, new HybridClock('dev')) }
}

describe('stamping in steps', () => {
  it('stamps in the order the changes were made, whatever the keys, one step at a time with the event loop between', async () => {
    const { ids, stampOf, log } = await setUp()
    // Other work waiting its turn: it runs between the steps, not after all of them.
    let ranBetween = 0
    let done = false
    const other = () => setImmediate(() => !done && (ranBetween++, other()))
    other()
    expect(await log.stampInSteps(1)).toBe(3)
    done = true
    // Each change keeps its own time: a later change never gets an earlier stamp, an earlier one never a later stamp.
    const stamps = ids.map(stampOf)
    expect([...stamps].sort()).toEqual(stamps)
    expect(stamps.map((s) => Number(s.slice(0, 13)))).toEqual([1_700_000_000_000, 1_700_000_001_000, 1_700_000_002_000])
    expect(ranBetween).toBeGreaterThanOrEqual(2)
  })

  it('a record changed again while the steps run is stamped by the next stamp, with the time of that change', async () => {
    const { ids, store, stampOf, log, db } = await setUp()
    const steps = log.stampInSteps(1)
    // Between the first and second step: the third record changes again, later.
    await new Promise((r) => setImmediate(r))
    store.conversations.update(ids[2]!, { title: 'a-third, again' })
    db.prepare('UPDATE sync_outbox SET changed_at = ? WHERE key = ?').run(1_700_000_009_000, ids[2])
    await steps
    expect(db.prepare('SELECT key, changed_at FROM sync_outbox').all()).toEqual([{ key: ids[2], changed_at: 1_700_000_009_000 }])
    log.stamp()
    expect(Number(stampOf(ids[2]!).slice(0, 13))).toBe(1_700_000_009_000)
    expect(db.prepare('SELECT COUNT(*) AS n FROM sync_outbox').get()).toEqual({ n: 0 })
  })
})
