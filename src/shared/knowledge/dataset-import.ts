import { DATASET_FIELDS, datasetRecordSchema, likelyField, referenceFileList, type RecordProblem } from './schemas'

export interface ParsedRecord {
  question: string
  ideal: string | null
  referenceFiles: string[]
}

export interface ParsedDataset {
  records: ParsedRecord[]
  problems: RecordProblem[]
}

/** RFC 4180 CSV: quoted fields may hold commas, quotes ("") and newlines. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let field = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"'
          i++
        } else quoted = false
      } else field += c
    } else if (c === '"' && field === '') quoted = true
    else if (c === ',') {
      row.push(field)
      field = ''
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++
      row.push(field)
      rows.push(row)
      row = []
      field = ''
    } else field += c
  }
  if (field !== '' || row.length > 0) {
    row.push(field)
    rows.push(row)
  }
  return rows.filter((r) => r.some((f) => f.trim() !== ''))
}

const FIELD_LIST = DATASET_FIELDS.join(', ')
const unknown = (what: 'field' | 'column', key: string) => {
  const meant = likelyField(key)
  return `unknown ${what} ${JSON.stringify(key)}${meant ? ` (did you mean ${JSON.stringify(meant)}?)` : ''}; ${what === 'field' ? 'a record has' : 'the columns are'} ${FIELD_LIST}`
}

/**
 * One record. A key it does not know refuses it: a misspelt `reference_files` would otherwise be
 * dropped, and the eval would run without reference files and report no recall.
 */
function check(raw: unknown, line: number, out: ParsedDataset): void {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    out.problems.push({ line, message: 'not an object: a record is {"question": …, "ideal": …, "referenceFiles": […]}' })
    return
  }
  const stray = Object.keys(raw).find((k) => !(DATASET_FIELDS as readonly string[]).includes(k))
  if (stray !== undefined) {
    out.problems.push({ line, message: unknown('field', stray) })
    return
  }
  const parsed = datasetRecordSchema.safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    out.problems.push({ line, message: `${issue.path.join('.') || 'record'}: ${issue.message}` })
    return
  }
  out.records.push({ question: parsed.data.question.trim(), ideal: parsed.data.ideal?.trim() || null, referenceFiles: referenceFileList(parsed.data.referenceFiles) })
}

/**
 * Dataset records from CSV (header with question, ideal, referenceFiles; several files split by
 * `;` or `|`) or JSONL (one object a line). Bad records are reported with their line, not dropped
 * silently; an unknown field or column is named with the expected ones.
 */
export function parseDataset(text: string, format: 'csv' | 'jsonl'): ParsedDataset {
  const out: ParsedDataset = { records: [], problems: [] }
  if (format === 'jsonl') {
    text.split(/\r?\n/).forEach((line, i) => {
      if (!line.trim()) return
      let value: unknown
      try {
        value = JSON.parse(line)
      } catch {
        out.problems.push({ line: i + 1, message: 'not valid JSON' })
        return
      }
      check(value, i + 1, out)
    })
    return out
  }
  const rows = parseCsv(text.replace(/^\uFEFF/, ''))
  const raw = (rows.shift() ?? []).map((h) => h.trim())
  const header = raw.map((h) => h.toLowerCase())
  const col = (name: string) => header.indexOf(name.toLowerCase())
  // A column it does not read refuses the file: every row would lose what that column holds.
  const stray = raw.find((h) => h && !DATASET_FIELDS.some((f) => f.toLowerCase() === h.toLowerCase()))
  if (stray !== undefined) {
    out.problems.push({ line: 1, message: unknown('column', stray) })
    return out
  }
  const q = col('question')
  if (q < 0) {
    out.problems.push({ line: 1, message: `the header has no "question" column (the columns are ${FIELD_LIST})` })
    return out
  }
  const ideal = col('ideal')
  const refs = col('referencefiles')
  rows.forEach((row, i) => {
    const files = refs >= 0 && row[refs]?.trim() ? row[refs]!.split(/[;|]/) : undefined
    check({ question: row[q] ?? '', ...(ideal >= 0 && row[ideal] ? { ideal: row[ideal] } : {}), ...(files ? { referenceFiles: files } : {}) }, i + 2, out)
  })
  return out
}
