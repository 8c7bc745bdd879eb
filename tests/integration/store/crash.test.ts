import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openStore } from '../../../src/core/store'
import { messageText } from '../../../src/shared/data/message'

const ROUNDS = 20
const dir = mkdtempSync(join(tmpdir(), 'sb-crash-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

type Ack = { kind: 'ready' } | { kind: 'flush' | 'complete'; id: string; text: string }

/** Runs the child until a random moment after it is ready, kills it with SIGKILL, returns its acks. */
function runAndKill(delayMs: number): Promise<Ack[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'crash-child.ts'), dir], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    let timer: NodeJS.Timeout | undefined
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (!timer && out.includes('"ready"')) timer = setTimeout(() => child.kill('SIGKILL'), delayMs)
    })
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
    child.on('exit', (_code, signal) => {
      if (signal !== 'SIGKILL') return reject(new Error(`child ended without being killed: ${err}`))
      // A line cut by the kill is not an ack.
      const lines = out.split('\n').slice(0, -1)
      resolve(lines.map((line) => JSON.parse(line) as Ack))
    })
  })
}

describe('crash safety', () => {
  it(`a reply streaming when the process is SIGKILLed ${ROUNDS} times loses nothing that was acknowledged`, async () => {
    const acked = new Map<string, { text: string; complete: boolean }>()
    let acks = 0
    for (let round = 0; round < ROUNDS; round++) {
      // Random moments, from during start-up work to deep inside a long reply.
      const delay = Math.floor(Math.random() * 250)
      for (const ack of await runAndKill(delay)) {
        if (ack.kind === 'ready') continue
        acks++
        const prev = acked.get(ack.id)
        acked.set(ack.id, { text: ack.text, complete: ack.kind === 'complete' || (prev?.complete ?? false) })
      }

      const { store } = openStore({ dataDir: dir, dailyBackupMs: 0 })
      try {
        expect(store.integrityCheck(), `round ${round}`).toEqual(['ok'])
        const rows = new Map(store.messages.list('crashconv').map((m) => [m.id, m]))
        for (const [id, expected] of acked) {
          const row = rows.get(id)
          expect(row, `round ${round}: acknowledged message ${id} is missing`).toBeDefined()
          const text = messageText(row!.content)
          if (expected.complete) {
            expect(row!.status).toBe('complete')
            expect(text).toBe(expected.text)
          } else {
            // Flushed text survives; a later, unacknowledged flush may have added more.
            expect(text.startsWith(expected.text), `round ${round}: ${id} lost flushed text`).toBe(true)
            expect(['interrupted', 'complete']).toContain(row!.status)
          }
        }
        expect([...rows.values()].some((m) => m.status === 'streaming')).toBe(false)
      } finally {
        store.close()
      }
    }
    // The test means something only if the kills landed while replies were being written.
    expect(acks).toBeGreaterThan(ROUNDS)
    const { store } = openStore({ dataDir: dir, dailyBackupMs: 0 })
    const interrupted = store.messages.list('crashconv').filter((m) => m.status === 'interrupted').length
    store.close()
    expect(interrupted).toBeGreaterThan(0)
  }, 180_000) // twenty child processes with tsx: slow on a loaded two-core machine
})
