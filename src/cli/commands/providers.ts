import type { CliCommand, CliIO } from '../command'
import { parseFlags } from '../command'
import { listProviderCards } from '../../shared/catalogue/loader'

/** `switchboard providers [--json]`: the provider cards of the built-in catalogue. */
export const providersCommand: CliCommand = {
  name: 'providers',
  summary: 'List the providers of the built-in catalogue',
  usage: 'switchboard providers [--json]',
  async run(args: string[], io: CliIO): Promise<number> {
    const { flags } = parseFlags(args, { booleans: ['json'] })
    const cards = listProviderCards()
    if (flags.get('json') === true) {
      io.stdout.write(`${JSON.stringify(cards)}\n`)
      return 0
    }
    const rows = cards.map((c) => [c.id, c.name, c.sdkType ?? '-', String(c.modelCount), c.showModelFetcher ? 'yes' : '', c.defaultBaseURL ?? ''])
    const header = ['ID', 'NAME', 'SDK', 'MODELS', 'FETCH', 'BASE URL']
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
    for (const row of [header, ...rows]) io.stdout.write(`${row.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()}\n`)
    return 0
  }
}
