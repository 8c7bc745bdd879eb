import { describe, it } from 'vitest'

// Web pages (tests/integration/knowledge/kb-web-page.test.ts) and reranking
// (tests/integration/knowledge/rerank.test.ts) are real tests now, and so is query rewriting
// before retrieval (tests/integration/knowledge/query-rewrite.test.ts, scene Search Intent Recognition).
describe('knowledge bases: parts that wait for other work', () => {
  it.todo('indexes a real 200 MB PDF, because no such fixture can ship in the repository; the size limit is tested with a small one')
})
