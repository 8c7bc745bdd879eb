import { describe, expect, it } from 'vitest'
import { linkCitationMarkers, sourceList } from '../../../src/shared/chat/citations'

describe('citations', () => {
  const sources = sourceList([
    { url: 'https://example.com/a_(b)', title: 'A' },
    { url: 'javascript:alert(1)', title: 'Evil' },
    { url: 'https://example.com/a_(b)', title: 'duplicate' },
    { url: 'http://plain.example', title: '' }
  ])

  it('numbers unique sources; only addresses the URL policy accepts become links', () => {
    expect(sources).toEqual([
      { n: 1, title: 'A', href: 'https://example.com/a_(b)', host: 'example.com' },
      { n: 2, title: 'Evil' },
      { n: 3, title: 'http://plain.example' }
    ])
  })

  it('links inline markers to their source, leaves unknown or unsafe ones and existing links alone', () => {
    expect(linkCitationMarkers('Sunny [1], windy [2], see [9] and [1](x).', sources)).toBe('Sunny [\\[1\\]](<https://example.com/a_(b)>), windy [2], see [9] and [1](x).')
  })
})
