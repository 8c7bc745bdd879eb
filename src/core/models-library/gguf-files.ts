import { QUANT_QUALITY } from '../gguf/fit-estimate'

/** One GGUF file of a repository as the hub's tree lists it. */
export interface RepoFile {
  path: string
  sizeBytes: number
  /** sha256 of the content (the LFS oid); absent for files not in LFS. */
  sha256?: string
}

/** A downloadable model: one GGUF file, or all parts of a split one (`-00001-of-00003.gguf`). */
export interface RepoModelFile {
  /** The first part's path (what llama.cpp is given: it finds the other parts itself). */
  path: string
  quant?: string
  sizeBytes: number
  parts: RepoFile[]
  /** A vision projector (`mmproj-…`): not a model on its own. */
  projector: boolean
}

const SPLIT = /^(.*)-(\d{5})-of-(\d{5})\.gguf$/i
const KNOWN = [...QUANT_QUALITY].sort((a, b) => b.length - a.length)

/** The quantisation named in a GGUF file name (`Llama-3-8B.Q4_K_M.gguf` → Q4_K_M), if any. */
export function quantOf(fileName: string): string | undefined {
  const base = (fileName.split('/').pop() ?? fileName).replace(SPLIT, '$1').replace(/\.gguf$/i, '')
  const upper = base.toUpperCase()
  for (const q of KNOWN) {
    const re = new RegExp(`(^|[^A-Z0-9])${q}($|[^A-Z0-9])`)
    if (re.test(upper)) return q
  }
  return undefined
}

/** Splits `…-00002-of-00003.gguf` into its stem and numbers; undefined for a whole file. */
export function splitPart(path: string): { stem: string; index: number; count: number } | undefined {
  const m = SPLIT.exec(path)
  return m ? { stem: m[1]!, index: Number(m[2]), count: Number(m[3]) } : undefined
}

/**
 * Groups a repository's GGUF files into models: the parts of a split file become one entry
 * (size summed, parts in order); an incomplete split (a part missing) is left out, as it
 * could not load.
 */
export function groupGgufFiles(files: readonly RepoFile[]): RepoModelFile[] {
  const out: RepoModelFile[] = []
  const splits = new Map<string, RepoFile[]>()
  for (const f of files) {
    if (!/\.gguf$/i.test(f.path)) continue
    const part = splitPart(f.path)
    if (part) {
      const key = `${part.stem}|${part.count}`
      const list = splits.get(key) ?? []
      list.push(f)
      splits.set(key, list)
      continue
    }
    out.push(entry([f]))
  }
  for (const [key, parts] of splits) {
    const count = Number(key.split('|')[1])
    parts.sort((a, b) => splitPart(a.path)!.index - splitPart(b.path)!.index)
    if (parts.length !== count || parts.some((p, i) => splitPart(p.path)!.index !== i + 1)) continue
    out.push(entry(parts))
  }
  return out.sort((a, b) => a.sizeBytes - b.sizeBytes)
}

function entry(parts: RepoFile[]): RepoModelFile {
  const first = parts[0]!
  const model: RepoModelFile = {
    path: first.path,
    sizeBytes: parts.reduce((s, p) => s + p.sizeBytes, 0),
    parts,
    projector: /(^|\/)mmproj/i.test(first.path)
  }
  const quant = quantOf(first.path)
  if (quant) model.quant = quant
  return model
}
