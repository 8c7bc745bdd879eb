import { describe, expect, it } from 'vitest'
import { parseCsv, parseDataset } from '../../../src/shared/knowledge/dataset-import'
import { datasetRecordSchema, evalDatasetSchema, knowledgeEvalSchema } from '../../../src/shared/knowledge/schemas'
import { retrievalScores } from '../../../src/core/knowledge/eval-metrics'
import { reciprocalRankFusion } from '../../../src/core/knowledge/retrieval'
import { htmlToText } from '../../../src/core/knowledge/html-to-text'
import { globToRegExp } from '../../../src/core/knowledge/folder-walk'

describe('spec schemas (product.md §7)', () => {
  it('a dataset record requires question text; ideal and referenceFiles (text or list) are optional', () => {
    expect(datasetRecordSchema.safeParse({ question: 'Why?' }).success).toBe(true)
    expect(datasetRecordSchema.safeParse({ question: 'Why?', ideal: 'Because', referenceFiles: 'a.md' }).success).toBe(true)
    expect(datasetRecordSchema.safeParse({ question: 'Why?', referenceFiles: ['a.md', 'b.md'] }).success).toBe(true)
    expect(datasetRecordSchema.safeParse({ ideal: 'x' }).success).toBe(false)
    expect(datasetRecordSchema.safeParse({ question: '  ' }).success).toBe(false)
  })

  it('a knowledge-base eval requires knowledgeBaseId and name; datasetId is numeric', () => {
    expect(knowledgeEvalSchema.safeParse({ knowledgeBaseId: 'abc', name: 'run' }).success).toBe(true)
    expect(knowledgeEvalSchema.safeParse({ knowledgeBaseId: 'abc' }).success).toBe(false)
    expect(knowledgeEvalSchema.safeParse({ name: 'run' }).success).toBe(false)
    expect(evalDatasetSchema.safeParse({ datasetId: 3, knowledgeBaseId: 'abc', name: 'run' }).success).toBe(true)
    const bad = evalDatasetSchema.safeParse({ datasetId: '3', knowledgeBaseId: 'abc', name: 'run' })
    expect(bad.success).toBe(false)
    expect(bad.error!.issues[0]!.message).toBe('datasetId must be a number')
  })
})

describe('dataset import', () => {
  it('parses RFC 4180 CSV: quotes, doubled quotes, newlines inside fields, CRLF', () => {
    expect(parseCsv('a,b\r\n"x, ""y""","multi\nline"\r\n')).toEqual([
      ['a', 'b'],
      ['x, "y"', 'multi\nline']
    ])
  })

  it('needs a question column in CSV, naming the columns it reads', () => {
    expect(parseDataset('ideal\nx\n', 'csv').problems).toEqual([{ line: 1, message: 'the header has no "question" column (the columns are question, ideal, referenceFiles)' }])
  })

  it('refuses a field it does not know, naming the expected ones and the likely one', () => {
    const jsonl = parseDataset('{"question":"Why?","reference_files":["a.md"]}\n{"question":"How?","referenceFiles":"b.md"}\n', 'jsonl')
    expect(jsonl.records).toEqual([{ question: 'How?', ideal: null, referenceFiles: ['b.md'] }])
    expect(jsonl.problems).toEqual([{ line: 1, message: 'unknown field "reference_files" (did you mean "referenceFiles"?); a record has question, ideal, referenceFiles' }])
    const csv = parseDataset('question,Reference Files\nWhy?,a.md\n', 'csv')
    expect(csv.records).toEqual([])
    expect(csv.problems).toEqual([{ line: 1, message: 'unknown column "Reference Files" (did you mean "referenceFiles"?); the columns are question, ideal, referenceFiles' }])
    expect(parseDataset('{"q":"Why?"}\n', 'jsonl').problems[0]!.message).toBe('unknown field "q"; a record has question, ideal, referenceFiles')
    expect(parseDataset('["Why?"]\n', 'jsonl').problems[0]!.message).toBe('not an object: a record is {"question": …, "ideal": …, "referenceFiles": […]}')
  })
})

describe('retrieval pieces', () => {
  it('fuses ranked lists by reciprocal rank (k = 60)', () => {
    const fused = reciprocalRankFusion([{ ids: [1, 2, 3] }, { ids: [3, 1] }])
    expect(fused.get(1)!.score).toBeCloseTo(1 / 61 + 1 / 62)
    expect(fused.get(3)!.ranks).toEqual([3, 1])
    expect(fused.get(2)!.ranks).toEqual([2, null])
  })

  it('recall@k and reciprocal rank by reference file name (path and case ignored)', () => {
    expect(retrievalScores(['x.md', 'A.md', 'b.md'], ['docs/a.md', 'c.md'], 5)).toEqual({ recall: 0.5, reciprocalRank: 0.5, hitRank: 2 })
    expect(retrievalScores(['x.md'], ['a.md'], 5)).toEqual({ recall: 0, reciprocalRank: 0, hitRank: null })
    expect(retrievalScores(['a.md'], [], 5)).toBeNull()
  })

  it('HTML to text keeps headings as Markdown and drops scripts', () => {
    expect(htmlToText('<h1>Title</h1><p>One &amp; two</p><ul><li>a</li><li>b</li></ul><script>x()</script>')).toBe('# Title\n\nOne & two\n\n- a\n- b')
  })

  it('globs: ** crosses folders, * does not', () => {
    expect(globToRegExp('docs/**/*.md').test('docs/a/b/c.md')).toBe(true)
    expect(globToRegExp('*.md').test('a/b.md')).toBe(false)
    expect(globToRegExp('*.md').test('b.md')).toBe(true)
  })
})
