import type { CliIO } from '../command'
import type { ModelType } from '../../shared/catalogue/types'
import type { RemoteModelCard } from '../../core/runtime/types'

const abilities = (m: RemoteModelCard) =>
  [m.functionCall && 'tools', m.vision && 'vision', m.reasoning && 'reasoning'].filter(Boolean).join(',')

const context = (n: number | undefined) => (n === undefined ? '' : n >= 1000 ? `${Math.round(n / 1000)}k` : String(n))

/**
 * `switchboard models <provider> --remote [--base-url URL] [--api-key-env VAR]`: the
 * provider's live model list through the runtime (key from the environment or keychain),
 * processed by the catalogue's model-list rules. Unknown ids work with --base-url.
 */
export async function runRemoteModels(providerId: string, flags: Map<string, string | true>, io: CliIO, type?: ModelType): Promise<number> {
  const { runtimeForCli } = await import('../../core/runtime/key-source')
  const runtime = await runtimeForCli(providerId, flags, io.env)
  if (!runtime.models) {
    io.stderr.write(`${providerId} cannot list its models.\n`)
    return 2
  }
  const result = await runtime.models()
  if (result.warning) io.stderr.write(`warning: ${result.warning}\n`)
  const models = type ? result.models.filter((m) => (m.type ?? 'chat') === type) : result.models
  if (flags.get('json') === true) {
    io.stdout.write(`${JSON.stringify(models)}\n`)
    return 0
  }
  const rows = models.map((m) => [m.id, m.type ?? 'chat', context(m.contextWindowTokens), abilities(m), m.displayName ?? ''])
  const header = ['ID', 'TYPE', 'CONTEXT', 'ABILITIES', 'NAME']
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  for (const row of [header, ...rows]) io.stdout.write(`${row.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()}\n`)
  io.stdout.write(`\n${models.length} model${models.length === 1 ? '' : 's'} from ${providerId}\n`)
  return 0
}
