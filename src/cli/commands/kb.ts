import { readFile } from 'node:fs/promises'
import type { CliCommand, CliIO } from '../command'
import { parseFlags } from '../command'
import type { KnowledgeService } from '../../core/knowledge/knowledge-service'
import { dataDirFrom } from '../data-dir'
import type { KnowledgeEval } from '../../shared/knowledge/types'

const USAGE = `switchboard kb <command> [--data-dir DIR] [--base-url URL] [--api-key-env VAR] [--json]
  kb list
  kb create NAME --model PROVIDER/MODEL [--chunk-size N] [--chunk-overlap N]
  kb add KB PATH… [--include GLOB]… [--exclude GLOB]…      (indexes and waits)
  kb search KB QUERY [--top N]
  kb eval KB DATASET.(csv|jsonl) [--k N]
KB is a knowledge base's id or name. The data folder defaults to the app's (SWITCHBOARD_DATA_DIR overrides).
A dataset's records have the fields question (required), ideal, referenceFiles (file names):
  JSONL, one a line: {"question": "…", "ideal": "…", "referenceFiles": ["a.md", "b.pdf"]}
  CSV, with a header: question,ideal,referenceFiles   (several files split by ; or |)`

function findBase(knowledge: KnowledgeService, ref: string | undefined) {
  const all = knowledge.list()
  const found = all.find((b) => b.id === ref) ?? all.find((b) => b.name === ref)
  if (!found) throw new Error(`No knowledge base is called ${JSON.stringify(ref)}. Run 'switchboard kb list'.`)
  return found
}

const percent = (x: number | null) => (x === null ? '–' : `${(x * 100).toFixed(1)}%`)

/** `switchboard kb`: knowledge bases headless, over the same core (store, indexing, retrieval, evals) as the app. */
export const kbCommand: CliCommand = {
  name: 'kb',
  summary: 'Knowledge bases: create, add files, search, evaluate',
  usage: USAGE,
  async run(args: string[], io: CliIO): Promise<number> {
    const { flags, lists, positionals } = parseFlags(args, { booleans: ['json'], strings: ['data-dir', 'base-url', 'api-key-env', 'model', 'chunk-size', 'chunk-overlap', 'top', 'k'], repeatable: ['include', 'exclude'] })
    const [sub, ...rest] = positionals
    if (!sub || !['list', 'create', 'add', 'search', 'eval'].includes(sub)) {
      io.stderr.write(`Usage: ${USAGE}\n`)
      return 2
    }
    const json = flags.get('json') === true
    const [{ headlessKnowledge }, { parseTarget, runtimeForCli }, { openStore }] = await Promise.all([
      import('../../core/knowledge/headless'),
      import('../../core/runtime/key-source'),
      import('../../core/store')
    ])
    const { store } = openStore({ dataDir: dataDirFrom(flags, io.env), dailyBackupMs: 0 })
    const { knowledge, evals, hub } = headlessKnowledge(store, (providerId) => runtimeForCli(providerId, flags, io.env))
    try {
      if (sub === 'list') {
        const bases = knowledge.list()
        if (json) io.stdout.write(`${JSON.stringify(bases)}\n`)
        else for (const b of bases) io.stdout.write(`${b.id}  ${b.name}  ${b.providerId}/${b.modelId}  ${b.files} files, ${b.chunks} chunks\n`)
        return 0
      }
      if (sub === 'create') {
        const target = parseTarget(typeof flags.get('model') === 'string' ? (flags.get('model') as string) : undefined)
        if (!rest[0] || !target) {
          io.stderr.write(`Usage: ${USAGE}\n`)
          return 2
        }
        const num = (name: string) => (typeof flags.get(name) === 'string' ? Number(flags.get(name)) : undefined)
        const size = num('chunk-size')
        const overlap = num('chunk-overlap')
        const kb = knowledge.create({ name: rest[0], providerId: target.providerId, modelId: target.model, ...(size ? { chunkSize: size } : {}), ...(overlap !== undefined ? { chunkOverlap: overlap } : {}) })
        io.stdout.write(json ? `${JSON.stringify(kb)}\n` : `${kb.id}\n`)
        return 0
      }
      const kb = findBase(knowledge, rest[0])
      if (sub === 'add') {
        if (rest.length < 2) {
          io.stderr.write(`Usage: ${USAGE}\n`)
          return 2
        }
        const include = lists.get('include')
        const exclude = lists.get('exclude')
        const ids = new Set<string>()
        const started = Date.now()
        const { added, skipped } = await knowledge.addPaths(kb.id, rest.slice(1), { ...(include ? { include } : {}), ...(exclude ? { exclude } : {}) }, (file) => ids.add(file.id))
        io.stderr.write(`${added} file(s) added${skipped ? `, ${skipped} skipped (not a readable kind)` : ''}; indexing…\n`)
        await knowledge.idle(kb.id)
        const files = knowledge.files(kb.id).filter((f) => ids.has(f.id))
        // What the run's embeddings used and cost, from the usage log it wrote (switchboard usage totals them).
        const spent = store.usage.summary('kind', { kind: 'embedding', scene: 'Knowledge Base Indexing', from: started })
        for (const s of spent) io.stderr.write(`Embeddings: ${s.totalTokens} tokens in ${s.calls} call(s)${s.currency ? `, ${s.cost.toFixed(6)} ${s.currency}` : ', unpriced'}
`)
        if (json) io.stdout.write(`${JSON.stringify(files)}\n`)
        else for (const f of files) io.stdout.write(`${f.status.padEnd(7)} ${f.name}${f.error ? `: ${f.error}` : ''}${f.flagged ? ` (flagged: ${f.flagged})` : ''}\n`)
        return files.some((f) => f.status === 'Error') ? 1 : 0
      }
      if (sub === 'search') {
        const query = rest.slice(1).join(' ')
        if (!query) {
          io.stderr.write(`Usage: ${USAGE}\n`)
          return 2
        }
        const top = Number(flags.get('top') ?? 5)
        const hits = await knowledge.search({ kbIds: [kb.id], query, topK: top })
        if (json) io.stdout.write(`${JSON.stringify(hits)}\n`)
        else
          hits.forEach((h, i) =>
            io.stdout.write(`[${i + 1}] ${h.fileName}${h.heading ? ` › ${h.heading}` : ''}${h.page ? ` (page ${h.page})` : ''}  ${h.charStart}–${h.charEnd}\n    ${h.text.replace(/\s+/g, ' ').slice(0, 160)}\n`)
          )
        return 0
      }
      // eval
      const file = rest[1]
      if (!file) {
        io.stderr.write(`Usage: ${USAGE}\n`)
        return 2
      }
      const { dataset, problems } = evals.importDataset({ name: file, format: /\.csv$/i.test(file) ? 'csv' : 'jsonl', text: await readFile(file, 'utf8') })
      for (const p of problems) io.stderr.write(`line ${p.line}: ${p.message} (skipped)\n`)
      const k = Number(flags.get('k') ?? 5)
      const iterator = evals.run({ knowledgeBaseId: kb.id, datasetId: dataset.id, name: `cli ${new Date().toISOString()}`, k }, new AbortController().signal)
      let result: KnowledgeEval | undefined
      for (;;) {
        const step = await iterator.next()
        if (step.done) {
          result = step.value
          break
        }
        if (io.stderr.isTTY) io.stderr.write(`\r${step.value.eval.done}/${step.value.eval.total}`)
      }
      if (io.stderr.isTTY) io.stderr.write('\n')
      if (json) io.stdout.write(`${JSON.stringify(result)}\n`)
      else io.stdout.write(`${result.status}: ${result.done} questions, recall@${k} ${percent(result.recall)}, MRR ${result.mrr === null ? '–' : result.mrr.toFixed(3)}${result.error ? ` (${result.error})` : ''}\n`)
      return result.status === 'Success' ? 0 : 1
    } finally {
      knowledge.close()
      hub.close()
      store.close()
    }
  }
}
