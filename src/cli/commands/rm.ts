import type { CliCommand, CliIO } from '../command'
import { parseFlags } from '../command'
import { cliOllamaUrl } from './pull'

export const rmCommand: CliCommand = {
  name: 'rm',
  summary: 'Delete a model from Ollama',
  usage: 'switchboard rm <model[:tag]>… [--base-url URL]',
  async run(args: string[], io: CliIO): Promise<number> {
    const { flags, positionals } = parseFlags(args, { strings: ['base-url'] })
    if (positionals.length === 0) {
      io.stderr.write(`Usage: ${rmCommand.usage}\n`)
      return 2
    }
    const [{ OllamaManager }, { normaliseOllamaBaseUrl }] = await Promise.all([import('../../core/local/ollama-manager'), import('../../core/runtime/providers/ollama/ollama-client')])
    const manager = new OllamaManager(() => normaliseOllamaBaseUrl(cliOllamaUrl(flags.get('base-url'), io.env)))
    let failed = 0
    for (const model of positionals) {
      try {
        await manager.remove(model)
        io.stdout.write(`deleted '${model}'\n`)
      } catch (error) {
        failed++
        io.stderr.write(`${model}: ${error instanceof Error ? error.message : String(error)}\n`)
      }
    }
    return failed ? 1 : 0
  }
}
