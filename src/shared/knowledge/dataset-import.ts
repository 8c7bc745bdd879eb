import { datasetRecordSchema, referenceFileList, type RecordProblem } from './schemas'

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

function check(raw: unknown, line: number, out: ParsedDataset): void {
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
 * `;` or `|`) or JSONL (one object a line). Bad records are reported with their line, not dropped silently.
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
  const header = (rows.shift() ?? []).map((h) => h.trim().toLowerCase())
  const col = (name: string) => header.indexOf(name.toLowerCase())
  const q = col('question')
  if (q < 0) {
    out.problems.push({ line: 1, message: 'the header has no "question" column' })
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
