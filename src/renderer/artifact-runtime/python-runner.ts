/**
 * A Python artifact: Pyodide (from the npm package, copied into this runtime folder at build
 * time) in a worker, so a long computation never blocks this page. Output is shown as it
 * comes. Only the standard library is shipped: importing anything else says so clearly.
 * Images: `display(...)` (a builtin, also `from switchboard import display`) shows SVG text,
 * PNG/JPEG/GIF bytes or a `data:image/...` URL inline, in order with the printed text.
 *
 * The worker is a blob script that loads Pyodide by URL: a sandboxed page has an opaque origin,
 * and a worker script must be of the page's origin, which only a blob URL made here is. It is a
 * classic worker: Chromium does not start a module worker from an opaque origin's blob URL.
 * (Pyodide refuses classic workers by probing `importScripts("data:…")`; the sandbox policy
 * allows no `data:` scripts, so the probe fails and Pyodide loads its module by `import()`.)
 */
const WORKER_SOURCE = `
const post = (type, text) => self.postMessage({ type, text })
self.onmessage = async (event) => {
  const { indexURL, prelude, code } = event.data
  let py
  try {
    importScripts(indexURL + 'pyodide.js')
    py = await self.loadPyodide({ indexURL, packages: [] })
    // Raw writes (line-buffered by Python), so a flush sends a partial line: display() flushes
    // before its image, and the text printed before it comes first, even without a newline.
    const writer = (type) => {
      const decoder = new TextDecoder()
      return { write: (bytes) => (post(type, decoder.decode(bytes, { stream: true })), bytes.length) }
    }
    py.setStdout(writer('stdout'))
    py.setStderr(writer('stderr'))
    py.registerJsModule('_switchboard_output', { image: (mime, data, alt) => self.postMessage({ type: 'image', mime, data, alt }) })
    py.runPython(prelude, { globals: py.runPython('dict()') })
  } catch (error) {
    post('error', 'Python could not start: ' + (error && error.message ? error.message : String(error)))
    return
  }
  post('started', '')
  try {
    await py.runPythonAsync(code)
    post('done', '')
  } catch (error) {
    post('error', String(error && error.message ? error.message : error))
  }
}
`

/**
 * Run before the program: the `switchboard` module and the `display` builtin. It flushes the
 * text written so far first, so an image lands between the lines printed before and after it.
 * Everything is sent as text: SVG as itself, a data URL as itself, bytes as base64.
 */
export const PYTHON_PRELUDE = String.raw`
import base64 as _b64, builtins as _builtins, sys as _sys, types as _types
from _switchboard_output import image as _image

_SIGNATURES = ((b'\x89PNG\r\n\x1a\n', 'image/png'), (b'\xff\xd8\xff', 'image/jpeg'), (b'GIF87a', 'image/gif'), (b'GIF89a', 'image/gif'))
_DATA_URL_TYPES = ('image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/svg+xml')

def _image_bytes(data):
    data = bytes(data)
    for signature, mime in _SIGNATURES:
        if data.startswith(signature):
            return mime, _b64.b64encode(data).decode('ascii')
    raise ValueError('display() got bytes that are not a PNG, JPEG or GIF image')

def display(obj, alt=''):
    """Shows an image in the output, after the text printed so far: SVG text (str), PNG, JPEG
    or GIF bytes, a data:image/... URL, or an object with _repr_svg_() or _repr_png_()."""
    for method, kind in (('_repr_svg_', str), ('_repr_png_', bytes)):
        make = getattr(obj, method, None)
        if callable(make) and not isinstance(obj, (str, bytes, bytearray, memoryview)):
            obj = make()
            break
    if isinstance(obj, (bytes, bytearray, memoryview)):
        mime, data = _image_bytes(obj)
    elif isinstance(obj, str):
        text = obj.strip()
        head = text[:300].lower()
        if head.startswith('data:'):
            mime = head[5:].split(';', 1)[0].split(',', 1)[0]
            if mime not in _DATA_URL_TYPES:
                raise ValueError('display() shows data:image/png, jpeg, gif, webp or svg+xml URLs, not data:' + mime)
            data = text
        elif head.startswith('<svg') or (head.startswith('<?xml') and '<svg' in text[:2000].lower()):
            mime, data = 'image/svg+xml', text
        else:
            raise ValueError('display() takes SVG text that starts with <svg, or a data:image/... URL; to show text, use print()')
    else:
        raise TypeError('display() takes SVG text, image bytes or a data:image/... URL, not ' + type(obj).__name__)
    _sys.stdout.flush()
    _sys.stderr.flush()
    _image(mime, data, str(alt))

_module = _types.ModuleType('switchboard', 'Switchboard helpers for Python artifacts: display(image).')
_module.display = display
_sys.modules['switchboard'] = _module
_builtins.display = display
`

/** Pyodide's messages for a module that is missing, rewritten to say why. */
export function explainMissingModule(message: string): string {
  const match = /No module named '([^'.]+)|The module '([^']+)' is included in the Pyodide distribution/.exec(message)
  const name = match?.[1] ?? match?.[2]
  if (!name) return message
  const chart = /^(matplotlib|plotly|seaborn|bokeh|altair|pygal)$/.test(name) ? ' To show a chart, draw it as SVG text and pass it to display().' : ''
  return `${message.trim()}\n\nThe package "${name}" is not available offline: Switchboard runs Python artifacts with the standard library only.${chart}`
}

/**
 * A running program that has said nothing (no output, no image) for this long is taken as hung
 * and stopped, as the HTML artifact's heartbeat stops a page that stopped answering: a worker
 * running Python cannot answer a ping, so silence is the sign. A long computation stays alive by
 * printing its progress.
 */
export const PYTHON_SILENT_MS = 10_000

export function runPython(code: string, onError: (message: string) => void): Promise<void> {
  const bar = document.createElement('div')
  bar.style.cssText = 'display:flex;gap:8px;align-items:center;margin-bottom:6px'
  const status = document.createElement('div')
  status.setAttribute('data-python-status', 'loading')
  status.textContent = 'Loading Python…'
  status.style.cssText = 'font:12px system-ui;color:#71717a'
  const stop = document.createElement('button')
  stop.type = 'button'
  stop.textContent = 'Stop'
  stop.setAttribute('data-python-stop', '')
  stop.style.cssText = 'font:12px system-ui;padding:1px 8px;border:1px solid #a1a1aa;border-radius:4px;background:transparent;cursor:pointer'
  bar.append(status, stop)
  const out = document.createElement('pre')
  out.setAttribute('data-python-output', '')
  out.style.cssText = 'font:13px ui-monospace,monospace;white-space:pre-wrap;margin:0'
  document.body.replaceChildren(bar, out)
  const write = (text: string, colour?: string) => {
    const span = document.createElement('span')
    span.textContent = text
    if (colour) span.style.color = colour
    out.append(span)
  }
  const url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: 'text/javascript' }))
  const worker = new Worker(url)
  return new Promise((resolve) => {
    let lastHeard = Date.now()
    let finished = false
    const end = (state: string, label: string) => {
      if (finished) return
      finished = true
      clearInterval(watchdog)
      stop.remove()
      status.textContent = label
      status.setAttribute('data-python-status', state)
      worker.terminate()
      URL.revokeObjectURL(url)
      // The images' blob URLs stay: the page shows them until the artifact is closed.
      resolve()
    }
    // Terminating the worker is the only way to stop Python there (no interrupt without
    // cross-origin isolation); what it printed stays.
    stop.onclick = () => end('stopped', 'Stopped')
    const watchdog = setInterval(() => {
      if (Date.now() - lastHeard <= PYTHON_SILENT_MS || status.getAttribute('data-python-status') !== 'running') return
      write(`${out.textContent && !out.textContent.endsWith('\n') ? '\n' : ''}Stopped: the program said nothing for ${PYTHON_SILENT_MS / 1000} s and may loop forever. Print its progress to keep a long computation running.\n`, '#b45309')
      end('not-responding', 'Stopped: not responding')
    }, 1000)
    worker.onmessage = (event: MessageEvent<{ type: string; text: string } | PythonImage>) => {
      lastHeard = Date.now()
      const data = event.data
      if (data.type === 'image') return void out.append(imageElement(data as PythonImage))
      const { type, text } = data as { type: string; text: string }
      if (type === 'started') {
        status.textContent = 'Running…'
        status.setAttribute('data-python-status', 'running')
      } else if (type === 'stdout') write(text)
      else if (type === 'stderr') write(text, '#b91c1c')
      else if (type === 'done' || type === 'error') {
        if (type === 'error') {
          const message = explainMissingModule(text)
          write(`${out.textContent && !out.textContent.endsWith('\n') ? '\n' : ''}${message}\n`, '#b91c1c')
          onError(message)
        }
        end(type, type === 'done' ? 'Finished' : 'Failed')
      }
    }
    worker.onerror = (event) => {
      onError(`Python could not start: ${event.message}`)
      end('error', 'Failed')
    }
    worker.postMessage({ indexURL: new URL('pyodide/', location.href).href, prelude: PYTHON_PRELUDE, code })
  })
}

/** An image a program showed with display(): SVG text, a data URL, or base64 image bytes. */
export interface PythonImage {
  type: 'image'
  mime: string
  data: string
  alt: string
}

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/svg+xml']

/**
 * The `src` of an image from display(), or undefined for anything else. SVG becomes a blob: URL
 * (an <img> never runs an SVG's scripts), bytes a data: URL; the sandbox's policy allows both.
 */
export function pythonImageSource(image: PythonImage, makeBlobUrl: (blob: Blob) => string): string | undefined {
  if (!IMAGE_TYPES.includes(image.mime) || typeof image.data !== 'string') return undefined
  if (image.data.startsWith('data:')) return image.data.toLowerCase().startsWith(`data:${image.mime}`) ? image.data : undefined
  if (image.mime === 'image/svg+xml') return makeBlobUrl(new Blob([image.data], { type: 'image/svg+xml' }))
  return /^[A-Za-z0-9+/]*={0,2}$/.test(image.data) ? `data:${image.mime};base64,${image.data}` : undefined
}

function imageElement(image: PythonImage): HTMLElement {
  const src = pythonImageSource(image, (blob) => URL.createObjectURL(blob))
  if (!src) {
    const note = document.createElement('span')
    note.textContent = 'display(): this image could not be shown.\n'
    note.style.color = '#b91c1c'
    return note
  }
  const img = document.createElement('img')
  img.src = src
  img.alt = image.alt || 'Image shown by the program'
  img.setAttribute('data-python-image', image.mime)
  img.style.cssText = 'display:block;max-width:100%;height:auto;margin:6px 0'
  return img
}
