import { describe, expect, it } from 'vitest'
import { artifactsOf, normaliseArtifactType, parseReply } from '../../../src/shared/artifacts/artifact-tag'
import { collectArtifactVersions } from '../../../src/shared/artifacts/artifact-versions'

const reply = 'Here it is.\n\n<artifact identifier="greeting" type="html" title="A &quot;nice&quot; page">\n<!doctype html><h1>Hi</h1>\n</artifact>\n\nDone.'

describe('the artifact tag parser', () => {
  it('splits a reply into text and artifacts with their attributes', () => {
    const segments = parseReply(reply)
    expect(segments.map((s) => s.kind)).toEqual(['text', 'artifact', 'text'])
    expect(segments[0]).toEqual({ kind: 'text', text: 'Here it is.\n\n' })
    expect(segments[1]).toEqual({ kind: 'artifact', artifact: { identifier: 'greeting', type: 'html', title: 'A "nice" page', content: '<!doctype html><h1>Hi</h1>', complete: true } })
    expect(segments[2]).toEqual({ kind: 'text', text: '\n\nDone.' })
  })

  it('gives the same artifacts for every prefix of a streamed reply, growing, never showing a partial tag as text', () => {
    const fullArtifact = artifactsOf(reply)[0]
    for (let n = 0; n <= reply.length; n++) {
      const segments = parseReply(reply.slice(0, n))
      const text = segments.flatMap((s) => (s.kind === 'text' ? [s.text] : [])).join('')
      // Neither the opening tag nor the closing tag ever shows as text, whatever the cut.
      expect(text).not.toMatch(/<a?r?t?i?f?a?c?t?[^>]*$|<\/a/)
      const artifacts = segments.flatMap((s) => (s.kind === 'artifact' ? [s.artifact] : []))
      expect(artifacts.length).toBeLessThanOrEqual(1)
      if (artifacts[0]) {
        expect(artifacts[0].identifier).toBe('greeting')
        expect(fullArtifact!.content.startsWith(artifacts[0].content.trimEnd()) || artifacts[0].content === '').toBe(true)
        expect(artifacts[0].complete).toBe(n >= reply.indexOf('</artifact>') + '</artifact>'.length)
      }
    }
  })

  it('takes the content out of a fence inside the tag, keeping its language', () => {
    const [artifact] = artifactsOf('<artifact identifier="x" type="code" title="T">\n```ts\nconst a = 1\n```\n</artifact>')
    expect(artifact).toMatchObject({ type: 'code', language: 'ts', content: 'const a = 1' })
    // Mid-stream, before the closing fence.
    expect(artifactsOf('<artifact identifier="x" type="code" title="T">\n```ts\nconst a')[0]).toMatchObject({ content: 'const a', complete: false })
  })

  it('reads single quotes and bare values, names unnamed artifacts, defaults to html', () => {
    const [a, b] = artifactsOf("<artifact identifier='one' type=react title='One'>x</artifact> and <artifact>y</artifact>")
    expect(a).toMatchObject({ identifier: 'one', type: 'react', title: 'One' })
    expect(b).toMatchObject({ identifier: 'artifact-2', type: 'html', content: 'y' })
  })

  it('leaves look-alike tags and ordinary angle brackets as text', () => {
    expect(parseReply('a < b and <artifacts> are plural')).toEqual([{ kind: 'text', text: 'a < b and <artifacts> are plural' }])
    expect(parseReply('x <')).toEqual([{ kind: 'text', text: 'x ' }])
    expect(parseReply('x <b')).toEqual([{ kind: 'text', text: 'x <b' }])
  })

  it('knows the type names models use', () => {
    expect(normaliseArtifactType('application/vnd.ant.react')).toBe('react')
    expect(normaliseArtifactType('image/svg+xml')).toBe('svg')
    expect(normaliseArtifactType('PYTHON')).toBe('python')
    expect(normaliseArtifactType('something else')).toBe('html')
    expect(normaliseArtifactType(undefined)).toBe('html')
  })

  it('parses a reply with thousands of tags, and an unclosed tag over 200,000 characters of angle brackets', () => {
    const many = Array.from({ length: 2000 }, (_, i) => `<artifact identifier="a${i % 10}" type="html" title="t">${'x'.repeat(200)}</artifact>`).join('\n')
    expect(artifactsOf(many)).toHaveLength(2000)
    // One growing artifact; the very last `<` is held back (it may start `</artifact>`).
    expect(artifactsOf(`<artifact identifier="big">${'<'.repeat(200_000)}`)[0]!.content.length).toBe(199_999)
  })
})

describe('artifact versions', () => {
  it('makes a later artifact with the same identifier the next version of the same artifact', () => {
    const versions = collectArtifactVersions([
      { id: 'm1', text: '<artifact identifier="page" title="P">v1</artifact>' },
      { id: 'm2', text: 'no artifact here' },
      { id: 'm3', text: '<artifact identifier="page" title="P">v2</artifact><artifact identifier="other">o</artifact>' }
    ])
    expect([...versions.keys()]).toEqual(['page', 'other'])
    expect(versions.get('page')!.map((v) => [v.messageId, v.version, v.content])).toEqual([
      ['m1', 0, 'v1'],
      ['m3', 1, 'v2']
    ])
  })
})
