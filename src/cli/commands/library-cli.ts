import type { CliIO } from '../command'
import { dataDirFrom } from '../data-dir'
import { formatBytes, formatDuration, formatRate, percent } from '../../shared/local/format'
import type { DownloadSnapshot, LibraryFile } from '../../shared/models-library/types'

/**
 * The model library in the CLI: `models search`, `models files`, and `pull hf:…` / `pull ollama:…`.
 * Loaded only when one of them runs, so other commands never pay for it.
 */
async function openLibrary(flags: Map<string, string | true>, io: CliIO) {
  const { ModelsLibrary } = await import('../../core/models-library/library-service')
  const hub = flags.get('hub')
  const registry = flags.get('registry')
  const proxy = flags.get('proxy')
  return new ModelsLibrary({
    dataDir: dataDirFrom(flags, io.env),
    // --proxy for this run, else the app's saved setting, else HTTPS_PROXY / HTTP_PROXY (NO_PROXY honoured).
    ...(typeof proxy === 'string' ? { proxy } : {}),
    env: io.env,
    hfToken: async () => io.env['HF_TOKEN'] || undefined,
    ...(typeof hub === 'string' ? { hubEndpoint: hub } : io.env['HF_ENDPOINT'] ? { hubEndpoint: io.env['HF_ENDPOINT'] } : {}),
    // --registry for this run, else the app's saved setting, else registry.ollama.ai.
    ...(typeof registry === 'string' ? { ollamaRegistry: registry } : {}),
    throttleMs: flags.get('json') === true ? 100 : io.stdout.isTTY ? 100 : 1000
  })
}

export async function runModelsSearch(query: string, flags: Map<string, string | true>, io: CliIO): Promise<number> {
  const library = await openLibrary(flags, io)
  try {
    const { entries, errors } = await library.search(query)
    if (flags.get('json') === true) {
      io.stdout.write(`${JSON.stringify({ entries, errors })}\n`)
      return errors.length && !entries.length ? 1 : 0
    }
    const rows = entries.map((e) => [
      e.source === 'hf' ? `hf:${e.id}` : e.source === 'ollama' ? `ollama:${e.id}` : e.path ?? e.name,
      e.source === 'disk' ? `on disk (${e.owner})` : e.source,
      e.sizeBytes !== undefined ? formatBytes(e.sizeBytes) : e.downloads !== undefined ? `${e.downloads.toLocaleString('en')} dl` : '',
      e.likes !== undefined ? `${e.likes} likes` : '',
      e.updatedAt?.slice(0, 10) ?? '',
      e.license ?? '',
      e.gated ? 'gated' : ''
    ])
    const header = ['MODEL', 'WHERE', 'SIZE/DOWNLOADS', 'LIKES', 'UPDATED', 'LICENSE', '']
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
    for (const row of [header, ...rows]) io.stdout.write(`${row.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()}\n`)
    for (const e of errors) io.stderr.write(`${e.source}: ${e.message}\n`)
    io.stdout.write(`\n${entries.length} model${entries.length === 1 ? '' : 's'}. Download one with 'switchboard pull hf:OWNER/REPO[:QUANT]' or 'switchboard pull ollama:NAME[:TAG]'.\n`)
    return 0
  } finally {
    await library.close()
  }
}

export async function runModelsRecommended(flags: Map<string, string | true>, io: CliIO): Promise<number> {
  const library = await openLibrary(flags, io)
  try {
    const list = await library.recommended()
    if (flags.get('json') === true) {
      io.stdout.write(`${JSON.stringify(list)}\n`)
      return 0
    }
    const rows = list.models.map((m) => [m.ref, formatBytes(m.sizeBytes), fitWord(m.fit), m.license, m.path ? 'downloaded' : '', m.goodAt])
    const header = ['MODEL', 'SIZE', 'FIT HERE', 'LICENSE', '', 'GOOD AT']
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
    for (const row of [header, ...rows]) io.stdout.write(`${row.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()}\n`)
    const smallest = list.models[0]
    if (list.noneFits && smallest) {
      io.stdout.write(
        `\nNone of these fits this machine's free memory (${formatBytes(list.memory.freeRamBytes + (list.memory.freeVramBytes ?? 0))}): the smallest, ${smallest.name}, needs about ${formatBytes(smallest.fit.totalBytes)}. Close other programs, or use a provider instead.\n`
      )
      return 0
    }
    io.stdout.write(`\nDownload one with 'switchboard pull <MODEL>', then chat with 'switchboard chat builtin/<id>' (ids: 'switchboard builtin list').\n`)
    return 0
  } finally {
    await library.close()
  }
}

const fitWord = (fit: LibraryFile['fit']) =>
  !fit ? '' : `${fit.verdict === 'fits' ? 'fits' : fit.verdict === 'tight' ? 'tight' : 'does not fit'} (${formatBytes(fit.totalBytes)})`

const fitText = (f: LibraryFile) =>
  !f.fit ? '' : `${f.fit.verdict === 'fits' ? 'fits' : f.fit.verdict === 'tight' ? 'tight' : 'does not fit'} (${formatBytes(f.fit.totalBytes)}; max ctx ${f.fit.maxContextThatFits})`

export async function runModelsFiles(repo: string, flags: Map<string, string | true>, io: CliIO): Promise<number> {
  const library = await openLibrary(flags, io)
  try {
    const ctx = flags.get('ctx')
    const details = await library.repo(repo.replace(/^hf:/, ''), typeof ctx === 'string' ? Number(ctx) : undefined)
    if (flags.get('json') === true) {
      io.stdout.write(`${JSON.stringify(details)}\n`)
      return 0
    }
    if (details.headerError) io.stderr.write(`Could not read the model's header, so no fit is shown: ${details.headerError}\n`)
    for (const f of details.files) {
      io.stdout.write(`${(f.quant ?? '?').padEnd(8)} ${formatBytes(f.sizeBytes).padStart(9)}  ${f.path}${f.parts > 1 ? ` (+${f.parts - 1} parts)` : ''}${f.projector ? '  [vision projector]' : ''}  ${fitText(f)}${f.recommended ? '  ← recommended' : ''}\n`)
    }
    io.stdout.write(`\nFit at ${details.contextTokens} tokens of context against ${formatBytes(details.memory.freeRamBytes)} free memory.\n`)
    return 0
  } finally {
    await library.close()
  }
}

function bar(snap: DownloadSnapshot, width: number): string {
  const pct = percent(snap.fraction)
  const cells = Math.max(10, Math.min(40, width - 70))
  const filled = Math.round((pct / 100) * cells)
  const sizes = snap.totalBytes > 0 ? `${formatBytes(snap.completedBytes)} / ${formatBytes(snap.totalBytes)}` : snap.phase
  const speed = snap.bytesPerSecond > 0 ? `  ${formatRate(snap.bytesPerSecond)}` : ''
  const eta = snap.etaSeconds !== undefined ? `  ${formatDuration(snap.etaSeconds)} left` : ''
  return `${snap.ref}  [${'#'.repeat(filled)}${'-'.repeat(cells - filled)}] ${pct.toFixed(1).padStart(5)}%  ${sizes}${speed}${eta}`
}

export async function runLibraryPull(ref: string, flags: Map<string, string | true>, io: CliIO): Promise<number> {
  const json = flags.get('json') === true
  const tty = Boolean(io.stdout.isTTY) && !json
  const library = await openLibrary(flags, io)
  let id: string | undefined
  // Ctrl-C pauses: the bytes stay, and the same command resumes.
  const onSignal = () => id && library.downloads.pause(id)
  process.once('SIGINT', onSignal)
  const onPipeError = () => id && library.downloads.pause(id)
  io.stdout.on('error', onPipeError)
  let final: DownloadSnapshot | undefined
  try {
    const ctx = flags.get('ctx')
    const { snapshot, file } = await library.pull(ref, { force: flags.get('force') === true, ...(typeof ctx === 'string' ? { contextTokens: Number(ctx) } : {}) })
    id = snapshot.id
    if (!json && file?.fit) io.stderr.write(`${file.path}: ${formatBytes(file.sizeBytes)}, ${fitText(file)} at ${file.fit.contextTokens} tokens of context\n`)
    let announced = false
    let notes = 0
    for await (const snap of library.downloads.watch(snapshot.id)) {
      final = snap
      if (json) {
        io.stdout.write(`${JSON.stringify(snap)}\n`)
        continue
      }
      if (snap.resumed && !announced) {
        announced = true
        io.stderr.write(`Resuming: ${formatBytes(snap.resumedBytes)} were already downloaded.\n`)
      }
      for (const note of snap.notes.slice(notes)) io.stderr.write(`${tty ? '\n' : ''}${note}\n`)
      notes = snap.notes.length
      if (tty) io.stdout.write(`\r\x1b[2K${bar(snap, io.stdout.columns ?? 100)}`)
      else if (snap.phase === 'downloading' || snap.phase === 'success') io.stdout.write(`${bar(snap, 100)}\n`)
    }
  } finally {
    process.removeListener('SIGINT', onSignal)
    io.stdout.removeListener('error', onPipeError)
    await library.close()
  }
  if (tty) io.stdout.write('\n')
  if (!final) return 1
  if (final.phase === 'success') {
    if (!json) io.stdout.write(`Downloaded ${final.ref}: ${formatBytes(final.totalBytes)}, verified, at ${final.path}\n`)
    return 0
  }
  if (final.phase === 'paused') {
    if (!json) io.stderr.write(`Paused with ${formatBytes(final.completedBytes)} kept; run the same command again to resume.\n`)
    return 130
  }
  if (!json) io.stderr.write(`Failed: ${final.error?.message ?? final.phase}\n`)
  return 1
}
