import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { appPathFor } from '../../../src/server/server'
import { TOKEN, cleanup, rawGet, start } from './server-harness'

afterEach(cleanup)

/** A renderer folder with an artifact runtime in it, as `electron-vite build` makes it. */
function rendererWithRuntime() {
  const dir = mkdtempSync(join(tmpdir(), 'sb-sandbox-'))
  const staticDir = join(dir, 'renderer')
  mkdirSync(join(staticDir, 'artifact-sandbox', 'pyodide'), { recursive: true })
  mkdirSync(join(staticDir, 'assets'), { recursive: true })
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Switchboard</title>')
  writeFileSync(join(staticDir, 'assets', 'app.js'), 'console.log("app")')
  writeFileSync(join(staticDir, 'artifact-sandbox', 'index.html'), '<!doctype html><title>Artifact</title>')
  writeFileSync(join(staticDir, 'artifact-sandbox', 'pyodide', 'pyodide.asm.wasm'), Buffer.from([0, 97, 115, 109]))
  return staticDir
}

describe('the artifact runtime route (issue 18)', () => {
  it('serves the runtime without the token (an opaque-origin frame has no cookie), with the no-network sandbox policy', async () => {
    const { port } = await start(undefined, { staticDir: rendererWithRuntime() })
    const page = await rawGet(port, '/artifact-sandbox/index.html', { host: `127.0.0.1:${port}` })
    expect(page.status).toBe(200)
    expect(page.body).toContain('Artifact')
    const csp = String(page.headers['content-security-policy'])
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain(`connect-src http://127.0.0.1:${port}/artifact-sandbox/;`)
    expect(csp).toContain('sandbox allow-scripts')
    expect(csp).not.toMatch(/https:|\*/)
    expect(page.headers['access-control-allow-origin']).toBe('*')
    const wasm = await rawGet(port, '/artifact-sandbox/pyodide/pyodide.asm.wasm', { host: `127.0.0.1:${port}` })
    expect(wasm.headers['content-type']).toBe('application/wasm')
    const net = await rawGet(port, '/artifact-sandbox/index.html?net=1', { host: `127.0.0.1:${port}` })
    expect(String(net.headers['content-security-policy'])).toContain('https:')
  })

  it('serves nothing of the app there: no fallback page, no way out of the folder, still only to known Host names', async () => {
    const { port } = await start(undefined, { staticDir: rendererWithRuntime() })
    const host = { host: `127.0.0.1:${port}` }
    expect((await rawGet(port, '/artifact-sandbox/missing.html', host)).status).toBe(404)
    expect((await rawGet(port, '/artifact-sandbox/', host)).status).toBe(404)
    for (const path of ['/artifact-sandbox/%2e%2e/assets/app.js', '/artifact-sandbox/..%2fassets%2fapp.js', '/artifact-sandbox/%2e%2e%2findex.html']) {
      const res = await rawGet(port, path, host)
      expect(res.status, path).not.toBe(200)
      expect(res.body).not.toContain('console.log("app")')
    }
    expect((await rawGet(port, '/artifact-sandbox/index.html', host, 'POST')).status).toBe(405)
    expect((await rawGet(port, '/artifact-sandbox/index.html', { host: 'evil.example' })).status).toBe(421)
  })

  it('lets the app page frame that folder and nothing else', async () => {
    const { port, url } = await start(undefined, { staticDir: rendererWithRuntime() })
    const redirect = await fetch(url, { redirect: 'manual' })
    const cookie = redirect.headers.get('set-cookie')!.split(';')[0]!
    const app = await rawGet(port, appPathFor(TOKEN), { host: `127.0.0.1:${port}`, cookie })
    expect(String(app.headers['content-security-policy'])).toContain(`frame-src blob: http://localhost:${port}/artifact-sandbox/;`)
    // …which answers under that name with a policy naming itself.
    const runtime = await rawGet(port, '/artifact-sandbox/index.html', { host: `localhost:${port}` })
    expect(runtime.status).toBe(200)
    expect(String(runtime.headers['content-security-policy'])).toContain(`connect-src http://localhost:${port}/artifact-sandbox/;`)
  })
})
