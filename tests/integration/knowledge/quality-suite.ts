import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { headlessKnowledge } from '../../../src/core/knowledge/headless'
import type { ProviderRuntime } from '../../../src/core/runtime/types'
import { openStore } from '../../../src/core/store'

/**
 * A retrieval quality suite: a templated corpus (the same background paragraphs around one key
 * fact per file, the case where hybrid retrieval must keep the exact hit), questions that name a
 * rare term, paraphrases of them, and questions that only an embedder that understands synonyms
 * can answer; a deliberately naive embedder and a good one. Shared by the tests and the bench.
 */

/** [code name, landmark in the document, the synonym a paraphrase uses]. */
const ENTITIES: readonly [string, string, string][] = [
  ['Magpie', 'aquarium', 'fishbowl'],
  ['Heron', 'elevator', 'lift'],
  ['Kestrel', 'sofa', 'couch'],
  ['Plover', 'kitchen', 'pantry'],
  ['Wren', 'library', 'bookshelves'],
  ['Finch', 'reception', 'lobby'],
  ['Osprey', 'piano', 'keyboard'],
  ['Lark', 'fireplace', 'hearth'],
  ['Robin', 'garden', 'courtyard'],
  ['Swift', 'gym', 'fitness'],
  ['Egret', 'cafeteria', 'canteen'],
  ['Ibis', 'window', 'pane'],
  ['Curlew', 'rooftop', 'terrace'],
  ['Dunlin', 'basement', 'cellar'],
  ['Gannet', 'mailroom', 'parcels'],
  ['Grebe', 'workshop', 'studio'],
  ['Linnet', 'auditorium', 'theatre'],
  ['Merlin', 'clinic', 'infirmary'],
  ['Nightjar', 'nursery', 'daycare'],
  ['Oriole', 'chapel', 'prayer'],
  ['Puffin', 'laboratory', 'lab'],
  ['Quail', 'warehouse', 'depot'],
  ['Rook', 'balcony', 'veranda'],
  ['Shrike', 'fountain', 'spring']
]

const BACKGROUND = [
  'Every printer in the building has an IP address that the network team assigns. The address of a printer is kept in this document, ' +
    'together with the room where the printer stands. If the address of the printer changes, the network team updates the document and ' +
    'tells the people who print on that floor. What is printed stays in the tray for one hour, after which it is shredded.',
  'To print, pick the printer by its name in the print dialog. The printer asks for your badge before it releases the pages. Colour ' +
    'printing costs more than black and white printing, so print in colour only when the document needs it. Double-sided printing is the ' +
    'default on every printer in the building.',
  'When a printer jams, open the front door of the printer, remove the paper, and close the door again. If the printer shows an error ' +
    'that does not go away, call the help desk and give them the name of the printer and its IP address. Toner is kept in the supply ' +
    'cupboard on each floor; the help desk replaces the drum.'
]

export interface QualityCase {
  question: string
  file: string
  kind: 'rare term' | 'paraphrase' | 'synonym'
}

export interface QualityCorpus {
  files: Record<string, string>
  cases: QualityCase[]
}

/** The corpus and its questions; `entities` picks how many files (at most 24). */
export function qualityCorpus(entities = ENTITIES.length): QualityCorpus {
  const files: Record<string, string> = {}
  const cases: QualityCase[] = []
  ENTITIES.slice(0, entities).forEach(([name, landmark, synonym], i) => {
    const file = `printer-${String(i + 1).padStart(2, '0')}.md`
    const fact = `The printer ${name} has the IP address 10.20.${i + 1}.${(i * 37) % 250} and stands in room ${i + 1}.12, next to the ${landmark}.`
    files[file] = [`# Printer ${i + 1}`, BACKGROUND[0], BACKGROUND[1], fact, BACKGROUND[2]].join('\n\n')
    cases.push({ question: `What is the IP address of the printer ${name}?`, file, kind: 'rare term' })
    cases.push({ question: `Where does ${name.toLowerCase()} stand, and which address was it given?`, file, kind: 'paraphrase' })
    cases.push({ question: `Which printer stands next to the ${synonym}?`, file, kind: 'synonym' })
  })
  return { files, cases }
}

const STOP = new Set('a an and the of is it in on to what which where who does do was has have next by its this that'.split(' '))
const SYNONYMS = new Map(ENTITIES.map(([, landmark, synonym]) => [synonym, landmark]))

const normalise = (v: Float64Array): number[] => {
  let norm = 0
  for (const x of v) norm += x * x
  norm = Math.sqrt(norm) || 1
  return Array.from(v, (x) => x / norm)
}
const slot = (feature: string, dims: number) => createHash('md5').update(feature).digest().readUInt32LE(0) % dims

/**
 * A good embedder for this corpus: content words (synonyms folded to one concept) hashed into
 * dimensions, so texts about the same things point the same way.
 */
export function goodVector(text: string, dims = 256): number[] {
  const v = new Float64Array(dims)
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (STOP.has(word)) continue
    v[slot(SYNONYMS.get(word) ?? word, dims)]! += 1
  }
  return normalise(v)
}

/**
 * A deliberately naive embedder: letter frequencies. Templated documents all look alike to it,
 * so its ranking among them is noise: what hybrid retrieval must survive.
 */
export function naiveVector(text: string): number[] {
  const v = new Float64Array(26)
  for (const ch of text.toLowerCase()) {
    const c = ch.charCodeAt(0) - 97
    if (c >= 0 && c < 26) v[c]! += 1
  }
  return normalise(v)
}

export type Embedder = (text: string) => number[]

export const runtimeOf = (embed: Embedder): ProviderRuntime => ({
  id: 'quality',
  embeddings: async (request) => ({ embeddings: (typeof request.input === 'string' ? [request.input] : request.input).map(embed) })
})

export interface QualityScore {
  kind: QualityCase['kind'] | 'all'
  questions: number
  /** Share of questions whose file is among the top k hits. */
  recall: number
  /** Mean of 1 / rank of the file's first hit (0 when absent). */
  mrr: number
}

/**
 * Indexes the corpus with the embedder (through the knowledge service, the path the app takes),
 * asks every question for its top k, and scores each kind of question.
 */
export async function measureQuality(embed: Embedder, k: number, corpus = qualityCorpus()): Promise<QualityScore[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-kb-quality-'))
  const src = mkdtempSync(join(tmpdir(), 'sb-kb-quality-src-'))
  const { store } = openStore({ dataDir, dailyBackupMs: 0 })
  try {
    for (const [name, text] of Object.entries(corpus.files)) writeFileSync(join(src, name), text)
    const { knowledge, hub } = headlessKnowledge(store, async () => runtimeOf(embed))
    try {
      const kb = knowledge.create({ name: 'quality', providerId: 'quality', modelId: 'm', chunkSize: 400, chunkOverlap: 0 })
      await knowledge.addPaths(kb.id, [src])
      await knowledge.idle(kb.id)
      const ranks: { kind: QualityCase['kind']; rank: number | null }[] = []
      for (const c of corpus.cases) {
        const hits = await knowledge.search({ kbIds: [kb.id], query: c.question, topK: k })
        const at = hits.findIndex((h) => h.fileName === c.file)
        ranks.push({ kind: c.kind, rank: at < 0 ? null : at + 1 })
      }
      const score = (kind: QualityScore['kind']): QualityScore => {
        const mine = ranks.filter((r) => kind === 'all' || r.kind === kind)
        return {
          kind,
          questions: mine.length,
          recall: mine.filter((r) => r.rank !== null).length / mine.length,
          mrr: mine.reduce((a, r) => a + (r.rank ? 1 / r.rank : 0), 0) / mine.length
        }
      }
      return (['rare term', 'paraphrase', 'synonym', 'all'] as const).map(score)
    } finally {
      hub.close()
    }
  } finally {
    store.close()
    rmSync(dataDir, { recursive: true, force: true })
    rmSync(src, { recursive: true, force: true })
  }
}

export const formatScores = (label: string, k: number, scores: readonly QualityScore[]): string =>
  scores.map((s) => `${label}, ${s.kind} (${s.questions} questions): recall@${k} ${s.recall.toFixed(2)}, MRR ${s.mrr.toFixed(2)}`).join('\n')
