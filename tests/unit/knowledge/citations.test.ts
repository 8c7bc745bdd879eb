import { describe, expect, it } from 'vitest'
import { citedNumbers, kbSourceHref, kbSourceOf, linkKnowledgeMarkers, splitCited } from '../../../src/shared/knowledge/citations'

// Knowledge citations: [n] in a reply links to its source, and Sources shows the cited ones.
describe('knowledge citations', () => {
  const known = new Set([1, 2, 3])

  it('finds the cited numbers, alone or in a list, only of sources that exist', () => {
    expect([...citedNumbers('On level two [2]. See also [1, 3] and [9].', known)].sort()).toEqual([1, 2, 3])
    expect([...citedNumbers('a [link](https://x.test) and [^1] and [1](https://y.test)', known)]).toEqual([])
  })

  it('turns each marker into a link to its source, keeping markers of unknown sources as text', () => {
    expect(linkKnowledgeMarkers('Level two [2].', known)).toBe(`Level two [\\[2\\]](${kbSourceHref(2)}).`)
    expect(linkKnowledgeMarkers('Both [1, 7].', known)).toBe(`Both [\\[1\\]](${kbSourceHref(1)})\\[7\\].`)
    expect(linkKnowledgeMarkers('None [7].', known)).toBe('None [7].')
    // A marker already made a web link is left alone.
    expect(linkKnowledgeMarkers('[\\[1\\]](<https://x.test>)', known)).toBe('[\\[1\\]](<https://x.test>)')
  })

  it('reads back the source of a link it made, and nothing else', () => {
    expect(kbSourceOf(kbSourceHref(12))).toBe(12)
    expect(kbSourceOf('#kb-source-1x')).toBeUndefined()
    expect(kbSourceOf('https://x.test/#kb-source-1')).toBeUndefined()
  })

  it('lists the cited sources and keeps the rest aside, all of them when the reply cites none', () => {
    const sources = [{ n: 1 }, { n: 2 }, { n: 3 }]
    expect(splitCited(sources, 'It is [2].')).toEqual({ cited: [{ n: 2 }], more: [{ n: 1 }, { n: 3 }] })
    expect(splitCited(sources, 'No idea.')).toEqual({ cited: [], more: sources })
  })
})
