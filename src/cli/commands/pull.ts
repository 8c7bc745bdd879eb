import type { CliCommand, CliIO } from '../command'
import { parseFlags } from '../command'
import { formatBytes, formatDuration, formatRate, percent } from '../../shared/local/format'
import type { PullSnapshot } from '../../shared/local/pull-progress'

/** The Ollama base URL for the CLI: --base-url, else OLLAMA_HOST (as Ollama's own CLI reads it), else the default. */
export const cliOllamaUrl = (flag: string | true | undefined, env: NodeJS.ProcessEnv) =>
  typeof flag === 'string' ? flag : env['OLLAMA_HOST'] || undefined

function bar(snap: PullSnapshot, width: number): string {
  const pct = percent(snap.fraction)
  const cells = Math.max(10, Math.min(40, width - 70))
  const filled = Math.round((pct / 100) * cells)
  const sizes = snap.totalBytes > 0 ? `${formatBytes(snap.completedBytes)} / ${formatBytes(snap.totalBytes)}` : snap.status || 'starting'
  const speed = snap.bytesPerSecond > 0 ? `  ${formatRate(snap.bytesPerSecond)}` : ''
  const eta = snap.etaSeconds !== undefined ? `  ${formatDuration(snap.etaSeconds)} left` : ''
  const phase = snap.phase === 'downloading' || snap.phase === 'starting' ? '' : `  ${snap.status}`
  return `${snap.model}  [${'#'.repeat(filled)}${'-'.repeat(cells - filled)}] ${pct.toFixed(1).padStart(5)}%  ${sizes}${speed}${eta}${phase}`
}

export const pullCommand: CliCommand = {
  name: 'pull',
  summary: 'Download a model (into Ollama, or from Hugging Face / the Ollama registry into the built-in store), with progress',
  usage: `switchboard pull <model[:tag]> [--base-url URL] [--insecure] [--json]
  switchboard pull hf:OWNER/REPO[:QUANT|:FILE.gguf] [--force] [--ctx N] [--hub URL] [--proxy URL] [--data-dir DIR] [--json]
  switchboard pull ollama:NAME[:TAG] [--registry URL] [--proxy URL] [--data-dir DIR] [--json]   (--registry: else the app's registry setting)
hf: and ollama: download into the built-in engine's store without Ollama, resume after any interruption and verify sha256.
--force downloads a model that does not fit in memory. HF_TOKEN is the Hugging Face token for gated repositories (the app keeps its own in Settings → Model library).
--proxy (else the app's proxy setting, else HTTPS_PROXY / HTTP_PROXY with NO_PROXY) carries hf: and ollama: requests.`,
  async run(args: string[], io: CliIO): Promise<number> {
    const { flags, positionals } = parseFlags(args, { booleans: ['insecure', 'json', 'force'], strings: ['base-url', 'hub', 'registry', 'data-dir', 'ctx', 'proxy'] })
    const model = positionals[0]
    if (!model || positionals.length > 1) {
      io.stderr.write(`Usage: ${pullCommand.usage}\n`)
      return 2
    }
    if (/^(hf|ollama):/.test(model)) {
      const { runLibraryPull } = await import('./library-cli')
      return runLibraryPull(model, flags, io)
    }
    const json = flags.get('json') === true
    const tty = Boolean(io.stdout.isTTY) && !json
    const { PullService } = await import('../../core/local/pull-service')
    const service = new PullService({ throttleMs: tty ? 100 : json ? 100 : 1000 })
    const start = service.start({ model, baseUrl: cliOllamaUrl(flags.get('base-url'), io.env), insecure: flags.get('insecure') === true })
    const onSignal = () => service.cancel(start.id)
    process.once('SIGINT', onSignal)
    // A closed pipe (`| head`) stops the pull instead of crashing on EPIPE.
    const onPipeError = () => service.cancel(start.id)
    io.stdout.on('error', onPipeError)
    let final: PullSnapshot | undefined
    let lastPhase = ''
    let announcedResume = false
    try {
      if (start.previousAttempt && !json) io.stderr.write('Resuming an earlier pull of this model.\n')
      for await (const snap of service.watch(start.id)) {
        final = snap
        if (json) {
          io.stdout.write(`${JSON.stringify(snap)}\n`)
          continue
        }
        if (tty) {
          io.stdout.write(`\r\x1b[2K${bar(snap, io.stdout.columns ?? 100)}`)
        } else if (snap.phase !== 'error' && snap.phase !== 'cancelled' && (snap.phase !== lastPhase || snap.phase === 'downloading')) {
          io.stdout.write(`${bar(snap, 100)}\n`)
        }
        if (snap.resumed && !announcedResume && !tty) {
          announcedResume = true
          io.stdout.write(`(resuming: ${formatBytes(snap.resumedBytes)} were already downloaded)\n`)
        }
        lastPhase = snap.phase
      }
    } finally {
      process.removeListener('SIGINT', onSignal)
      io.stdout.removeListener('error', onPipeError)
      await service.close()
    }
    if (tty) io.stdout.write('\n')
    if (!final) return 1
    if (final.phase === 'success') {
      if (!json) {
        const resumed = final.resumed ? ` (resumed; ${formatBytes(final.resumedBytes)} were already there)` : ''
        io.stdout.write(`Pulled ${final.model}: ${formatBytes(final.totalBytes)}${resumed}\n`)
      }
      return 0
    }
    if (!json) io.stderr.write(`${final.phase === 'cancelled' ? 'Cancelled' : 'Failed'}: ${final.error?.message ?? final.status}\n`)
    return final.phase === 'cancelled' ? 130 : 1
  }
}
