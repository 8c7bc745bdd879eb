import { loadPyodide, type PyodideAPI } from 'pyodide'
import { beforeAll, describe, expect, it } from 'vitest'
import { explainMissingModule, PYTHON_PRELUDE, pythonImageSource, type PythonImage } from '../../../src/renderer/artifact-runtime/python-runner'

// The display() helper of Python artifacts (issue 18), run in the real Pyodide the app ships
// (its Node build, from the same npm package, which finds its own files), with the worker's
// output wired to a list.
type Out = { kind: 'text'; text: string } | { kind: 'image'; mime: string; data: string; alt: string }
let py: PyodideAPI
let out: Out[] = []

beforeAll(async () => {
  py = await loadPyodide({ packages: [] })
  // As the worker does: raw writes, line-buffered by Python, flushed by display().
  const decoder = new TextDecoder()
  py.setStdout({ write: (bytes) => (out.push({ kind: 'text', text: decoder.decode(bytes, { stream: true }) }), bytes.length) })
  py.registerJsModule('_switchboard_output', { image: (mime: string, data: string, alt: string) => void out.push({ kind: 'image', mime, data, alt }) })
  py.runPython(PYTHON_PRELUDE, { globals: py.runPython('dict()') as never })
}, 60_000)

const run = async (code: string) => {
  out = []
  await py.runPythonAsync(code)
  return out
}

const PNG = "b'\\x89PNG\\r\\n\\x1a\\n' + bytes(20)"

describe('display() in Python artifacts', () => {
  it('shows SVG text, PNG bytes and data URLs in order with the printed text', async () => {
    const shown = await run(`
from switchboard import display as shown
print('before')
display('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>', alt='a square')
print('partial', end='')
shown(${PNG})
display('data:image/png;base64,iVBORw0KGgo=')
print('after')
`)
    expect(shown.map((o) => (o.kind === 'text' ? o.text : o.mime))).toEqual(['before\n', 'image/svg+xml', 'partial', 'image/png', 'image/png', 'after\n'])
    expect(shown[1]).toMatchObject({ data: expect.stringMatching(/^<svg/), alt: 'a square' })
    expect(shown[3]).toMatchObject({ data: expect.stringMatching(/^iVBORw0KGgo/) })
    expect(shown[4]).toMatchObject({ data: 'data:image/png;base64,iVBORw0KGgo=' })
  })

  it('uses _repr_svg_ / _repr_png_ and refuses what is not an image, saying what it takes', async () => {
    const shown = await run(`
class Chart:
    def _repr_svg_(self):
        return '<svg xmlns="http://www.w3.org/2000/svg"></svg>'
display(Chart())
for bad in ('hello', b'not an image', 42, 'data:text/html,<b>x</b>'):
    try:
        display(bad)
    except (TypeError, ValueError) as error:
        print(type(error).__name__, error)
`)
    expect(shown[0]).toMatchObject({ kind: 'image', mime: 'image/svg+xml' })
    const texts = shown.slice(1).map((o) => (o.kind === 'text' ? o.text : 'image'))
    expect(texts).toHaveLength(4)
    expect(texts[0]).toMatch(/ValueError .*use print\(\)/)
    expect(texts[1]).toMatch(/ValueError .*not a PNG, JPEG or GIF/)
    expect(texts[2]).toMatch(/TypeError .*not int/)
    expect(texts[3]).toMatch(/ValueError .*not data:text\/html/)
  })

  it('leaves matplotlib unavailable, with the offline explanation and a pointer to display()', async () => {
    const error = await run('import matplotlib').then(
      () => '',
      (e: Error) => e.message
    )
    const explained = explainMissingModule(error)
    expect(explained).toMatch(/"matplotlib" is not available offline/)
    expect(explained).toMatch(/display\(\)/)
    expect(explainMissingModule("ModuleNotFoundError: No module named 'requests'")).not.toMatch(/display/)
  })
})

describe('the image sources the runtime shows', () => {
  const image = (mime: string, data: string): PythonImage => ({ type: 'image', mime, data, alt: '' })
  const blob = () => 'blob:made'
  it('makes SVG a blob URL, bytes a data URL, keeps matching data URLs, refuses the rest', () => {
    expect(pythonImageSource(image('image/svg+xml', '<svg></svg>'), blob)).toBe('blob:made')
    expect(pythonImageSource(image('image/png', 'iVBORw0KGgo='), blob)).toBe('data:image/png;base64,iVBORw0KGgo=')
    expect(pythonImageSource(image('image/svg+xml', 'data:image/svg+xml,%3Csvg%3E'), blob)).toBe('data:image/svg+xml,%3Csvg%3E')
    expect(pythonImageSource(image('image/png', 'data:text/html,<b>'), blob)).toBeUndefined()
    expect(pythonImageSource(image('text/html', '<b>x</b>'), blob)).toBeUndefined()
    expect(pythonImageSource(image('image/png', 'not base64!'), blob)).toBeUndefined()
  })
})
