/**
 * A deterministic simulation of sync (in the manner of FoundationDB's and Turso's): 3–5 devices —
 * each a real core with its own SQLite database and the real sync engine — meet in a store in
 * memory, driven by one seeded random source. They create conversations, rename them, write
 * messages and replies, delete messages and conversations and attach files, and between any two
 * steps a fault may strike: a device killed half way through a round (and opened again from its
 * data folder), an upload dropped (or stored with its answer lost), an upload stored twice (the
 * second time later, over what came since), a segment damaged or deleted in the store, a clock ten
 * minutes off, a device offline for many rounds. Then the faults stop, every device syncs twice,
 * and all of them must hold the same conversations and messages, nothing written and not deleted
 * may be missing, every message must hang off its conversation's first message (the conversation
 * view reaches it), and every file must be there byte for byte.
 *
 * SYNC_SIM_SEEDS sets how many seeds run (CI: the default, 200, so the file stays under two minutes
 * inside the whole suite). Measured on this machine's two cores: 300 seeds in 51 s alone on an idle
 * machine (~0.17 s a seed); inside a full `npm test`, beside Playwright and the other test files,
 * 300 took 155 s (0.5 s a seed), hence 200 there; 91 s at load 5, 142 s at load 10 for 300 with
 * others' tests running. 1,000 seeds pass (seed 858 found decision 146); run them with
 * SYNC_SIM_SEEDS=1000 before changing the merge. Every seed runs; a failure names all that failed and how to
 * replay the first: SYNC_SIM_SEED=<n> runs that one alone (SYNC_SIM_DEBUG=1 prints its steps and
 * what each device ends with).
 *
 * A replay is exact (the last test checks it: the same rows, stamps and store keys twice). The
 * seed draws everything that orders records or stamps them, from streams of its own so the steps
 * stay those the seed always took: the device ids (the sync engine's `newDeviceId`, a test-only
 * option), the record ids (`newId`, mocked here), and time — Date is faked (T0, then STEP_MS a
 * step), each device's wall clock is it plus the device's skew, and the capture triggers' SQLite
 * clock (julianday('now'), migration 007) reads the fake Date too (`simulatedSqlClock`). Only the
 * encryption's salts and nonces stay random (they name blobs and fill ciphertext, never order
 * anything). SYNC_SIM_IDS=<n> draws other ids, and SYNC_SIM_STEP_MS=<ms> another step length, for
 * the same steps: a divergence that depends on the ids' order or on the clocks shows under some.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { SyncStoreError } from '../../../src/core/sync/store'
import type * as idsModule from '../../../src/core/store/ids'
import { contents, openDevice, text, type Device } from './devices'
import { MemoryStore } from './memory-store'

/**
 * Record ids, drawn from the seed while a seed runs (`newId`'s random bytes otherwise): ids order
 * records in a table, so in a segment and in a merge.
 */
const ids = vi.hoisted(() => ({ next: undefined as undefined | (() => string) }))
vi.mock('../../../src/core/store/ids', async (importOriginal) => {
  const real = await importOriginal<typeof idsModule>()
  return { ...real, newId: () => ids.next?.() ?? real.newId() }
})

const SEEDS = Number(process.env.SYNC_SIM_SEEDS ?? 200)
/**
 * Seeds that find a divergence not fixed yet: left out of the run (each is an it.todo below) so
 * the others keep guarding; SYNC_SIM_SEED=<n> still replays one.
 */
const KNOWN: Record<number, string> = {}
/** Draws other ids for the same steps (SYNC_SIM_IDS=<n>): ids order segments and records, so a divergence that depends on that order shows under some. */
const IDS = Number(process.env.SYNC_SIM_IDS ?? 0)
const ONLY = process.env.SYNC_SIM_SEED === undefined ? undefined : Number(process.env.SYNC_SIM_SEED)
const STEPS = 40
/**
 * Where the devices' data folders go: memory where the system has it. Most of a seed was SQLite
 * waiting for the disk (a commit per round step, a backup on close), which a crash never reaches
 * here: a kill is a store call that throws, not a lost write.
 */
const ROOT = existsSync('/dev/shm') ? '/dev/shm' : tmpdir()

/** mulberry32: small, fast, and the same sequence everywhere for a seed. */
function random(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(list: readonly T[]): T | undefined => (list.length ? list[Math.floor(next() * list.length)] : undefined),
    chance: (p: number) => next() < p
  }
}

/** 16 characters of [0-9a-z], as `newId` makes them, from `rng`. */
const idFrom = (rng: ReturnType<typeof random>) => Array.from({ length: 16 }, () => '0123456789abcdefghijklmnopqrstuvwxyz'[rng.int(36)]).join('')

/** The simulated time a seed starts at, and how far it moves each step (every device's wall clock is it plus the device's skew). */
const T0 = Date.UTC(2026, 0, 1)
const STEP_MS = Number(process.env.SYNC_SIM_STEP_MS ?? 1_000)

/**
 * The capture triggers note when a row changed from SQLite's own clock (julianday('now'), see
 * migration 007), which the fake Date does not reach: this device's database reads the fake one.
 */
function simulatedSqlClock(device: Device): Device {
  device.core.services().store.backups?.stop()
  device.core.services().store.db.sqlite.function('julianday', (when: unknown) => {
    if (when !== 'now') throw new Error(`the simulation's julianday takes only 'now', not ${String(when)}`)
    return Date.now() / 86_400_000 + 2_440_587.5
  })
  return device
}

/** What one device's store calls do next, as the seed decides. */
interface Faults {
  /** Rounds left offline (every call unreachable). */
  offline: number
  /** Store calls left before the process is killed (the call throws; the device is opened again). */
  killAfter?: number
  /** The next segment put is dropped: nothing stored, the call fails. */
  dropNext?: boolean
  /** The next segment put is stored, but its answer is lost. */
  loseAnswer?: boolean
  /** The next put is stored once more some steps later. */
  duplicateNext?: boolean
}

class Killed extends SyncStoreError {
  constructor() {
    super('SyncStoreUnreachable', 'the process was killed here')
  }
}

interface Model {
  conversations: Map<string, { deleted: boolean }>
  messages: Map<string, { conversationId: string; deleted: boolean }>
  files: Map<string, { path: string; bytes: Buffer }>
}

/**
 * Runs one seed and checks its end; returns what every device ends with (its rows and their
 * stamps) and the store's keys (blobs' only counted), to tell whether a replay took exactly the same course.
 */
async function simulate(seed: number, folder: string, template: string): Promise<string> {
  const rng = random(seed)
  // Streams of their own, so drawing ids leaves the seed's steps and faults as they were.
  const idRng = random(seed ^ 0x5eed1d5 ^ (IDS << 8))
  const deviceRng = random(seed ^ 0xde71ce ^ (IDS << 8))
  ids.next = () => idFrom(idRng)
  vi.useFakeTimers({ toFake: ['Date'], now: T0 })
  const store = new MemoryStore()
  const count = 3 + rng.int(3)
  const faults: Faults[] = []
  const replays: Array<{ at: number; key: string; body: Uint8Array }> = []
  let step = 0
  const model: Model = { conversations: new Map(), messages: new Map(), files: new Map() }
  const devices: Device[] = []
  const dataDirs: string[] = []

  const viewFor = (i: number) => () => {
    const f = faults[i]!
    const view = store.open((call, key) => {
      if (f.offline > 0) throw new SyncStoreError('SyncStoreUnreachable', 'offline')
      if (f.killAfter !== undefined && f.killAfter-- <= 0) {
        f.killAfter = undefined
        throw new Killed()
      }
      void call
      void key
    })
    const put = view.put.bind(view)
    view.put = async (key, body) => {
      if (key.startsWith('segments/') && f.dropNext) {
        f.dropNext = false
        throw new SyncStoreError('SyncStoreUnreachable', 'upload dropped')
      }
      await put(key, body)
      if (process.env.SYNC_SIM_DEBUG && !key.startsWith('blobs/')) console.log('PUT', step, `D${i}`, key, f.loseAnswer && key.startsWith('segments/') ? '(answer lost)' : '')
      if (f.duplicateNext) {
        f.duplicateNext = false
        replays.push({ at: step + 1 + rng.int(5), key, body: new Uint8Array(body) })
      }
      if (key.startsWith('segments/') && f.loseAnswer) {
        f.loseAnswer = false
        throw new SyncStoreError('SyncStoreUnreachable', 'answer lost')
      }
    }
    return view
  }

  const open = async (i: number) => {
    // A data folder as a first start leaves it (migrated), copied: opening is then a fraction of the cost.
    const dataDir = mkdtempSync(join(ROOT, `sb-sim-D${i}-`))
    cpSync(template, dataDir, { recursive: true })
    // No round of its own after a write (a real timer, which a loaded machine would make fire at any step): the seed decides when each device syncs.
    const d = simulatedSqlClock(await openDevice(`D${i}`, { store: viewFor(i), dataDir, newDeviceId: () => Array.from({ length: 16 }, () => '0123456789abcdef'[deviceRng.int(16)]).join(''), timings: { debounceMs: 3_600_000 } }))
    devices[i] = d
    dataDirs[i] = d.dataDir
    return d
  }

  try {
    for (let i = 0; i < count; i++) {
      faults.push({ offline: 0 })
      const d = await open(i)
      await d.setup({ kind: 'folder', path: folder })
    }
    const svc = (d: Device) => d.core.services()
    const sync = async (i: number) => {
      const f = faults[i]!
      await devices[i]!.sync().catch(() => undefined)
      if (f.offline > 0) f.offline--
      // Killed half way: the device starts again from its data folder.
      if ((devices[i]!.core.services().sync.status().error?.message ?? '').includes('killed')) {
        if (process.env.SYNC_SIM_DEBUG) console.log('STEP', step, `D${i}`, 'killed: opened again')
        devices[i] = simulatedSqlClock(await devices[i]!.reopen())
      }
    }

    for (step = 0; step < STEPS; step++) {
      vi.setSystemTime(T0 + (step + 1) * STEP_MS)
      for (const r of replays.filter((r) => r.at === step)) {
        store.objects.set(r.key, r.body)
        if (process.env.SYNC_SIM_DEBUG) console.log('STEP', step, 'stores again', r.key)
      }
      const i = rng.int(count)
      const d = devices[i]!
      const held = svc(d).store.conversations.list()
      const roll = rng.int(100)
      if (roll < 14) {
        const conv = svc(d).store.conversations.create({ agentId: svc(d).chat.defaultAgent().id, title: `c${step}` })
        model.conversations.set(conv.id, { deleted: false })
        if (process.env.SYNC_SIM_DEBUG) console.log('STEP', step, d.name, 'creates conversation', conv.id)
      } else if (roll < 38) {
        const conv = rng.pick(held)
        if (conv) {
          const messages = svc(d).store.messages.list(conv.id)
          const parent = rng.pick(messages)
          const m = svc(d).store.messages.create({ conversationId: conv.id, role: rng.chance(0.5) ? 'user' : 'assistant', content: text(`m${step}`), ...(parent ? { parentId: parent.id } : {}) })
          model.messages.set(m.id, { conversationId: conv.id, deleted: false })
          if (process.env.SYNC_SIM_DEBUG) console.log('STEP', step, d.name, 'writes', m.id, 'under', parent?.id)
        }
      } else if (roll < 46) {
        const conv = rng.pick(held)
        if (conv) svc(d).store.conversations.update(conv.id, { title: `renamed ${step}` })
        if (conv && process.env.SYNC_SIM_DEBUG) console.log('STEP', step, d.name, 'renames', conv.id)
      } else if (roll < 53) {
        const conv = rng.pick(held)
        const m = conv && rng.pick(svc(d).store.messages.list(conv.id))
        if (m) {
          if (process.env.SYNC_SIM_DEBUG) console.log('STEP', step, d.name, 'deletes message', m.id)
          svc(d).chat.deleteMessage(m.id)
          model.messages.get(m.id)!.deleted = true
        }
      } else if (roll < 56) {
        const conv = rng.pick(held)
        if (conv) {
          if (process.env.SYNC_SIM_DEBUG) console.log('STEP', step, d.name, 'deletes conversation', conv.id)
          svc(d).store.conversations.delete(conv.id)
          model.conversations.get(conv.id)!.deleted = true
        }
      } else if (roll < 61) {
        const bytes = Buffer.from(`file ${seed}/${step}\r\nline two\r\n${'x'.repeat(rng.int(64))}`)
        const { file } = await svc(d).attachments.upload({ name: `f${step}.txt`, mimeType: 'text/plain', bytes })
        model.files.set(file.id, { path: file.path, bytes })
      } else if (roll < 85) {
        if (process.env.SYNC_SIM_DEBUG) console.log('STEP', step, d.name, 'syncs')
        await sync(i)
      } else {
        // A fault.
        const f = faults[i]!
        const kind = rng.int(8)
        if (process.env.SYNC_SIM_DEBUG) console.log('STEP', step, d.name, 'fault', kind)
        if (kind === 0) f.killAfter = rng.int(12)
        else if (kind === 1) f.dropNext = true
        else if (kind === 2) f.loseAnswer = true
        else if (kind === 3) f.duplicateNext = true
        else if (kind === 4 || kind === 5) {
          const segment = rng.pick([...store.objects.keys()].filter((k) => k.startsWith('segments/')))
          if (segment && kind === 4) {
            const body = new Uint8Array(store.objects.get(segment)!)
            body[rng.int(body.length)]! ^= 0x40
            store.objects.set(segment, body)
          } else if (segment) store.objects.delete(segment)
          if (process.env.SYNC_SIM_DEBUG) console.log('STEP', step, kind === 4 ? 'damages' : 'deletes', segment)
        } else if (kind === 6) d.skew.ms = rng.chance(0.5) ? 600_000 : -600_000
        else f.offline = 3 + rng.int(8)
      }
    }

    // The faults stop; every device syncs twice, in turn.
    for (const f of faults) Object.assign(f, { offline: 0, killAfter: undefined, dropNext: false, loseAnswer: false, duplicateNext: false })
    for (let pass = 0; pass < 2; pass++)
      for (let i = 0; i < count; i++) {
        vi.setSystemTime(Date.now() + STEP_MS)
        await sync(i)
      }

    if (process.env.SYNC_SIM_DEBUG) {
      console.log('STORE', [...store.objects.keys()].join(' '))
      for (const d of devices) {
        const st = d.core.services().sync.status()
        for (const row of d.core.services().store.db.sqlite.prepare("SELECT m.key, m.hlcs, m.deleted, c.title FROM sync_meta m LEFT JOIN conversations c ON c.id = m.key WHERE m.tbl = 'conversations'").all()) console.log('CONV', d.name, JSON.stringify(row))
        console.log('DEV', d.name, st.deviceId, st.state, st.error?.message, svc(d).store.conversations.list().length, JSON.stringify(d.core.services().store.db.sqlite.prepare('SELECT * FROM sync_seen').all()), JSON.stringify(d.core.services().store.db.sqlite.prepare('SELECT next_seq FROM sync_control').get()))
      }
    }
    const first = contents(devices[0]!)
    for (const d of devices.slice(1)) {
      const c = contents(d)
      expect(c.conversations, `${d.name} holds other conversations than D0`).toEqual(first.conversations)
      expect(c.messages, `${d.name} holds other messages than D0`).toEqual(first.messages)
    }
    for (const d of devices) {
      for (const [id, m] of model.messages) {
        const held = svc(d).store.messages.get(id)
        if (m.deleted) expect(held, `${d.name}: message ${id} was deleted`).toBeUndefined()
        else if (!model.conversations.get(m.conversationId)?.deleted) expect(held, `${d.name}: message ${id} is missing`).toBeDefined()
      }
      for (const [id, c] of model.conversations) if (!c.deleted) expect(svc(d).store.conversations.get(id), `${d.name}: conversation ${id} is missing`).toBeDefined()
      for (const conv of svc(d).store.conversations.list()) {
        const messages = svc(d).store.messages.list(conv.id)
        const ids = new Set(messages.map((m) => m.id))
        if (process.env.SYNC_SIM_DEBUG)
          for (const m of messages.filter((m) => m.parentId !== undefined && !ids.has(m.parentId)))
            for (const o of devices) console.log('ORPHAN', d.name, m.id, '->', m.parentId, 'on', o.name, JSON.stringify(o.core.services().store.db.sqlite.prepare('SELECT * FROM sync_meta WHERE key IN (?, ?)').all(m.parentId, m.id)), JSON.stringify(o.core.services().store.db.sqlite.prepare('SELECT id, parent_id FROM messages WHERE id IN (?, ?)').all(m.parentId, m.id)))
        expect(messages.filter((m) => m.parentId !== undefined && !ids.has(m.parentId)).map((m) => m.id), `${d.name}: messages not shown in ${conv.id}`).toEqual([])
      }
      for (const [id, f] of model.files) {
        if (!svc(d).store.files.get(id)) continue
        expect(readFileSync(join(d.dataDir, f.path)).equals(f.bytes), `${d.name}: file ${id} differs`).toBe(true)
      }
    }
    const stamps = (d: Device) => d.core.services().store.db.sqlite.prepare('SELECT tbl, key, hlcs, deleted FROM sync_meta ORDER BY tbl, key').all()
    // A blob's name is keyed by the sync key, whose salt is random (and only names it): counted, not listed.
    const keys = [...store.objects.keys()]
    return JSON.stringify({ store: keys.filter((k) => !k.startsWith('blobs/')), blobs: keys.filter((k) => k.startsWith('blobs/')).length, devices: devices.map((d) => ({ contents: contents(d), stamps: stamps(d) })) })
  } finally {
    for (const d of devices) await d?.close().catch(() => undefined)
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true })
    ids.next = undefined
    vi.useRealTimers()
  }
}

describe('sync simulation', () => {
  let folder = ''
  let template = ''
  beforeAll(async () => {
    folder = mkdtempSync(join(ROOT, 'sb-sync-sim-'))
    // Made at a fixed time too: every seed's devices start from its rows.
    vi.useFakeTimers({ toFake: ['Date'], now: T0 - 86_400_000 })
    try {
      const first = await openDevice('template', { dataDir: mkdtempSync(join(ROOT, 'sb-sim-template-')) })
      await first.close()
      template = first.dataDir
    } finally {
      vi.useRealTimers()
    }
  })
  afterAll(() => {
    rmSync(folder, { recursive: true, force: true })
    if (template) rmSync(template, { recursive: true, force: true })
  })

  for (const [seed, what] of Object.entries(KNOWN)) it.todo(`seed ${seed}, because it finds a divergence not fixed yet: ${what}`)

  it(`${ONLY === undefined ? `${SEEDS} seeds` : `seed ${ONLY}`}: devices with faults between any two steps end the same, nothing lost, every message shown`, { timeout: 600_000 }, async () => {
    const seeds = ONLY === undefined ? Array.from({ length: SEEDS }, (_, n) => n + 1).filter((n) => !(n in KNOWN)) : [ONLY]
    // Every seed runs: a failure names them all, the first with its message.
    const failed: Array<{ seed: number; error: Error }> = []
    for (const seed of seeds) {
      try {
        await simulate(seed, folder, template)
      } catch (error) {
        failed.push({ seed, error: error as Error })
      }
    }
    if (failed.length) {
      const { seed, error } = failed[0]!
      throw new Error(`sync simulation failed at seed${failed.length > 1 ? 's' : ''} ${failed.map((f) => f.seed).join(', ')} (replay: SYNC_SIM_SEED=${seed} npx vitest run tests/integration/sync/sync-sim.test.ts): seed ${seed}: ${error.message}`, { cause: error })
    }
  })

  // Seeds 13 and 74 once diverged in one run of three or four: the device ids (which order the
  // segments) came from outside the seed. A replay must take the very same course.
  it.skipIf(ONLY !== undefined)('a seed replays exactly: the same rows, stamps and store keys every time', { timeout: 120_000 }, async () => {
    for (const seed of [13, 74]) expect(await simulate(seed, folder, template), `seed ${seed}'s replay`).toBe(await simulate(seed, folder, template))
  })
})
