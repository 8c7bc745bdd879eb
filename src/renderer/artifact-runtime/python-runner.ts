/**
 * A Python artifact: Pyodide (from the npm package, copied into this runtime folder at build
 * time) in a worker, so a long computation never blocks this page. Output is shown as it
 * comes. Only the standard library is shipped: importing anything else says so clearly.
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
  const { indexURL, code } = event.data
  let py
  try {
    importScripts(indexURL + 'pyodide.js')
    py = await self.loadPyodide({ indexURL, packages: [] })
    py.setStdout({ batched: (s) => post('stdout', s) })
    py.setStderr({ batched: (s) => post('stderr', s) })
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

/** Pyodide's messages for a module that is missing, rewritten to say why. */
export function explainMissingModule(message: string): string {
  const match = /No module named '([^'.]+)|The module '([^']+)' is included in the Pyodide distribution/.exec(message)
  const name = match?.[1] ?? match?.[2]
  if (!name) return message
  return `${message.trim()}\n\nThe package "${name}" is not available offline: Switchboard runs Python artifacts with the standard library only.`
}

export function runPython(code: string, onError: (message: string) => void): Promise<void> {
  const status = document.createElement('div')
  status.setAttribute('data-python-status', 'loading')
  status.textContent = 'Loading Python…'
  status.style.cssText = 'font:12px system-ui;color:#71717a;margin-bottom:6px'
  const out = document.createElement('pre')
  out.setAttribute('data-python-output', '')
  out.style.cssText = 'font:13px ui-monospace,monospace;white-space:pre-wrap;margin:0'
  document.body.replaceChildren(status, out)
  const line = (text: string, colour?: string) => {
    const span = document.createElement('span')
    span.textContent = `${text}\n`
    if (colour) span.style.color = colour
    out.append(span)
  }
  const url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: 'text/javascript' }))
  const worker = new Worker(url)
  return new Promise((resolve) => {
    worker.onmessage = (event: MessageEvent<{ type: string; text: string }>) => {
      const { type, text } = event.data
      if (type === 'started') {
        status.textContent = 'Running…'
        status.setAttribute('data-python-status', 'running')
      } else if (type === 'stdout') line(text)
      else if (type === 'stderr') line(text, '#b91c1c')
      else if (type === 'done' || type === 'error') {
        status.textContent = type === 'done' ? 'Finished' : 'Failed'
        status.setAttribute('data-python-status', type)
        if (type === 'error') {
          const message = explainMissingModule(text)
          line(message, '#b91c1c')
          onError(message)
        }
        worker.terminate()
        URL.revokeObjectURL(url)
        resolve()
      }
    }
    worker.onerror = (event) => {
      onError(`Python could not start: ${event.message}`)
      resolve()
    }
    worker.postMessage({ indexURL: new URL('pyodide/', location.href).href, code })
  })
}
