import type { CliCommand, CliIO } from '../command'
import { parseFlags, readStdin } from '../command'

const USAGE = 'switchboard embed <provider>/<model> [--base-url URL] [--api-key-env VAR] [--dimensions N] [--data-dir DIR] [--json] [TEXT… | -]'

/**
 * `switchboard embed`: one JSON vector per input line on stdout and their count and dimensions on
 * stderr (stdout stays a clean pipe), or one JSON object `{embeddings, dimensions, usage}` with --json.
 */
export const embedCommand: CliCommand = {
  name: 'embed',
  summary: 'Create embeddings (one vector per input)',
  usage: USAGE,
  async run(args: string[], io: CliIO): Promise<number> {
    const { flags, positionals } = parseFlags(args, { booleans: ['json'], strings: ['base-url', 'api-key-env', 'dimensions', 'data-dir'] })
    const [{ parseTarget, runtimeForCli }, { embeddingsOutput }] = await Promise.all([import('../../core/runtime/key-source'), import('../../core/embeddings/embedding-service')])
    const target = parseTarget(positionals[0])
    if (!target) {
      io.stderr.write(`Usage: ${USAGE}\n`)
      return 2
    }
    let inputs = positionals.slice(1)
    if ((inputs.length === 1 && inputs[0] === '-') || (inputs.length === 0 && io.stdin.isTTY !== true)) {
      inputs = (await readStdin(io.stdin)).split('\n').filter((line) => line.trim())
    }
    if (inputs.length === 0) {
      io.stderr.write('Nothing to embed: pass texts as arguments or lines on stdin (-).\n')
      return 2
    }
    const dimensions = flags.get('dimensions')
    const runtime = await runtimeForCli(target.providerId, flags, io.env)
    if (!runtime.embeddings) {
      io.stderr.write(`${target.providerId} does not offer embeddings.\n`)
      return 2
    }
    // Through the one model caller, as the app embeds: priced, and written to the data folder's usage log.
    const [{ createModelCaller }, { cliUsageLog }, { dataDirFrom }] = await Promise.all([import('../../core/caller/create-caller'), import('../usage-log'), import('../data-dir')])
    const usage = await cliUsageLog(dataDirFrom(flags, io.env))
    let raw: Awaited<ReturnType<NonNullable<typeof runtime.embeddings>>>
    try {
      const caller = createModelCaller({ runtimeFor: async () => runtime, usage })
      raw = await caller.embed({ target: { providerId: runtime.id, modelId: target.model }, scene: 'Command Line', input: inputs, ...(typeof dimensions === 'string' ? { dimensions: Number(dimensions) } : {}) })
    } finally {
      usage.close()
    }
    const result = embeddingsOutput(raw.embeddings, inputs.length, target.providerId, raw.usage)
    if (flags.get('json') === true) io.stdout.write(`${JSON.stringify(result)}\n`)
    else {
      for (const vector of result.embeddings) io.stdout.write(`${JSON.stringify(vector)}\n`)
      io.stderr.write(`${result.embeddings.length} vector${result.embeddings.length === 1 ? '' : 's'} × ${result.dimensions} dimensions\n`)
    }
    return 0
  }
}
