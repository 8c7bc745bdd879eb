import { existsSync } from 'node:fs'
import type { CliCommand, CliIO } from '../command'
import { parseFlags } from '../command'
import { dataDirFrom } from '../data-dir'

const GROUPS = ['kind', 'scene', 'provider', 'model', 'day'] as const
type Group = (typeof GROUPS)[number]

const USAGE = `switchboard usage [--by ${GROUPS.join('|')}] [--days N] [--json] [--data-dir DIR]
  What the app's model calls used and cost, from its usage log, grouped by kind of call
  (chat, embedding, rerank, speech, transcription, image) unless --by says otherwise.
  --days N counts the last N days only. The data folder defaults to the app's (SWITCHBOARD_DATA_DIR overrides).`

const money = (amount: number, currency: string | undefined) => `${currency === 'CNY' ? '¥' : '$'}${amount < 0.01 && amount > 0 ? amount.toFixed(6) : amount.toFixed(4)}`

/** `switchboard usage`: the Usage page's totals in a terminal (or as JSON). */
export const usageCommand: CliCommand = {
  name: 'usage',
  summary: 'Tokens and cost of the model calls, by kind of call',
  usage: USAGE,
  async run(args: string[], io: CliIO): Promise<number> {
    const { flags, positionals } = parseFlags(args, { booleans: ['json'], strings: ['data-dir', 'by', 'days'] })
    const by = (flags.get('by') ?? 'kind') as Group
    const days = flags.get('days')
    if (positionals.length > 0 || !GROUPS.includes(by) || (days !== undefined && !(Number(days) > 0))) {
      io.stderr.write(`Usage: ${USAGE}\n`)
      return 2
    }
    const json = flags.get('json') === true
    const dataDir = dataDirFrom(flags, io.env)
    const { openStore, databasePath } = await import('../../core/store')
    // Nothing recorded yet is an empty answer, not a new data folder made to hold it.
    if (!existsSync(databasePath(dataDir))) {
      io.stdout.write(json ? '[]\n' : `No usage recorded in ${dataDir}.\n`)
      return 0
    }
    const { store } = openStore({ dataDir, dailyBackupMs: 0 })
    try {
      const from = days === undefined ? undefined : Date.now() - Number(days) * 86_400_000
      const rows = store.usage.summary(by, { ...(from !== undefined ? { from } : {}), utcOffsetMinutes: -new Date().getTimezoneOffset() })
      if (json) {
        io.stdout.write(`${JSON.stringify(rows)}\n`)
        return 0
      }
      if (rows.length === 0) {
        io.stdout.write('No usage recorded.\n')
        return 0
      }
      const table = rows.map((r) => [r.key || '–', String(r.calls), String(r.totalTokens), r.cost || r.currency ? money(r.cost, r.currency) : 'unpriced', money(r.costUsd, 'USD')])
      const header = [by.toUpperCase(), 'CALLS', 'TOKENS', 'COST', 'USD']
      const total = rows.reduce((t, r) => ({ calls: t.calls + r.calls, tokens: t.tokens + r.totalTokens, usd: t.usd + r.costUsd }), { calls: 0, tokens: 0, usd: 0 })
      const all = [header, ...table, ['TOTAL', String(total.calls), String(total.tokens), '', money(total.usd, 'USD')]]
      const widths = header.map((_, i) => Math.max(...all.map((row) => row[i]!.length)))
      for (const row of all) io.stdout.write(`${row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('   ')}\n`)
      return 0
    } finally {
      store.close()
    }
  }
}
