import type { CliCommand, CliIO } from '../command'
import { parseFlags } from '../command'
import { CATALOGUE_PROVIDER_IDS } from '../../../catalogue/index'
import { isCatalogueProviderId, loadMergedProviderModels } from '../../shared/catalogue/loader'
import { MODEL_TYPES, type MergedModel, type ModelType } from '../../shared/catalogue/types'
import { runRemoteModels } from './models-remote'

/** `switchboard models <provider> [--type T] [--json]`: the builtin catalogue of one provider. */
export const modelsCommand: CliCommand = {
  name: 'models',
  summary: "List a provider's built-in models",
  usage: `switchboard models <provider> [--type ${MODEL_TYPES.join('|')}] [--remote [--base-url URL] [--api-key-env VAR]] [--json]
  switchboard models search QUERY [--hub URL] [--proxy URL] [--data-dir DIR] [--json] (Hugging Face GGUF, the Ollama library, models on disk)
  switchboard models files OWNER/REPO [--ctx N] [--hub URL] [--json]        (quantisations with size and memory fit)
  switchboard models recommended [--data-dir DIR] [--json]                 (small models for a first offline chat, with their fit here)`,
  async run(args: string[], io: CliIO): Promise<number> {
    const { flags, positionals } = parseFlags(args, { booleans: ['json', 'remote'], strings: ['base-url', 'api-key-env', 'type', 'hub', 'data-dir', 'ctx', 'proxy'] })
    const providerId = positionals[0]
    if (providerId === 'recommended' && !isCatalogueProviderId(providerId)) return (await import('./library-cli')).runModelsRecommended(flags, io)
    if ((providerId === 'search' || providerId === 'files') && !isCatalogueProviderId(providerId)) {
      const arg = positionals.slice(1).join(' ')
      if (!arg) {
        io.stderr.write(`Usage: ${this.usage}\n`)
        return 2
      }
      const cli = await import('./library-cli')
      return providerId === 'search' ? cli.runModelsSearch(arg, flags, io) : cli.runModelsFiles(arg, flags, io)
    }
    if (!providerId) {
      io.stderr.write(`Usage: ${this.usage}\nProviders: ${CATALOGUE_PROVIDER_IDS.join(', ')}\n`)
      return 2
    }
    const remote = flags.get('remote') === true
    if (!isCatalogueProviderId(providerId) && !(remote && flags.has('base-url'))) {
      io.stderr.write(`Unknown provider '${providerId}'. Run 'switchboard providers' for the list.\n`)
      return 2
    }
    const type = flags.get('type')
    if (type !== undefined && !(MODEL_TYPES as readonly unknown[]).includes(type)) {
      io.stderr.write(`--type must be one of ${MODEL_TYPES.join(', ')}\n`)
      return 2
    }
    // --remote: the provider's live list through the runtime.
    if (remote) return runRemoteModels(providerId, flags, io, type as ModelType | undefined)
    const all = await loadMergedProviderModels(providerId)
    const models = type ? all.filter((m) => m.type === (type as ModelType)) : all
    if (flags.get('json') === true) {
      io.stdout.write(`${JSON.stringify(models)}\n`)
      return 0
    }
    if (models.length === 0) {
      io.stdout.write(`${providerId} has no built-in ${type ?? ''} models.\n`.replace('  ', ' '))
      return 0
    }
    const rows = models.map((m) => [m.id, m.type, contextOf(m), m.enabled ? 'yes' : '', abilitiesOf(m), m.displayName])
    const header = ['ID', 'TYPE', 'CONTEXT', 'ON', 'ABILITIES', 'NAME']
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
    for (const row of [header, ...rows]) io.stdout.write(`${row.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()}\n`)
    io.stdout.write(`\n${models.length} model${models.length === 1 ? '' : 's'}\n`)
    return 0
  }
}

const contextOf = (m: MergedModel) =>
  m.contextWindowTokens === undefined ? '' : m.contextWindowTokens >= 1000 ? `${Math.round(m.contextWindowTokens / 1000)}k` : String(m.contextWindowTokens)

const ABILITY_LETTERS: Array<[keyof MergedModel['abilities'], string]> = [
  ['functionCall', 'tools'],
  ['vision', 'vision'],
  ['reasoning', 'reasoning'],
  ['search', 'search'],
  ['imageOutput', 'image-out']
]
const abilitiesOf = (m: MergedModel) => ABILITY_LETTERS.filter(([k]) => m.abilities[k]).map(([, label]) => label).join(',')
