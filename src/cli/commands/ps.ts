import type { CliCommand, CliIO } from '../command'
import { parseFlags } from '../command'
import { formatBytes } from '../../shared/local/format'
import { cliOllamaUrl } from './pull'

export const psCommand: CliCommand = {
  name: 'ps',
  summary: 'List the models Ollama has loaded in memory',
  usage: 'switchboard ps [--base-url URL] [--json]',
  async run(args: string[], io: CliIO): Promise<number> {
    const { flags } = parseFlags(args, { booleans: ['json'], strings: ['base-url'] })
    const [{ OllamaManager }, { normaliseOllamaBaseUrl }] = await Promise.all([import('../../core/local/ollama-manager'), import('../../core/runtime/providers/ollama/ollama-client')])
    const baseUrl = normaliseOllamaBaseUrl(cliOllamaUrl(flags.get('base-url'), io.env))
    const running = await new OllamaManager(() => baseUrl).running()
    if (flags.get('json') === true) {
      io.stdout.write(`${JSON.stringify(running)}\n`)
      return 0
    }
    if (running.length === 0) {
      io.stdout.write('No model is loaded.\n')
      return 0
    }
    const rows = running.map((m) => {
      const gpu = m.sizeBytes > 0 ? Math.round((m.sizeVramBytes / m.sizeBytes) * 100) : 0
      const processor = gpu >= 100 ? '100% GPU' : gpu <= 0 ? '100% CPU' : `${100 - gpu}%/${gpu}% CPU/GPU`
      const until = m.expiresAt ? new Date(m.expiresAt).toLocaleTimeString() : ''
      return [m.name, formatBytes(m.sizeBytes), processor, m.contextLength ? String(m.contextLength) : '', until]
    })
    const header = ['NAME', 'SIZE', 'PROCESSOR', 'CONTEXT', 'UNTIL']
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
    for (const row of [header, ...rows]) io.stdout.write(`${row.map((c, i) => c.padEnd(widths[i]!)).join('   ').trimEnd()}\n`)
    return 0
  }
}
