import { expect, type Browser } from '@playwright/test'
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { TOKEN } from './helpers'

// Browser-mode servers of a spec's own, each with its own data folder and port, for tests that
// kill and restart the core or need two devices.

/** A port nothing listens on right now. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })

export async function startServer(port: number, dataDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['out/main/server.js', '--port', String(port), '--token', TOKEN], {
    env: { ...process.env, SWITCHBOARD_DATA_DIR: dataDir, E2E: '1' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  // What the server said, for the failure message when it does not come up.
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  await expect
    .poll(async () => fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false), {
      timeout: 30_000,
      message: `the server on port ${port} did not come up (exit ${child.exitCode ?? child.signalCode ?? 'none'}): ${output}`
    })
    .toBe(true)
  return child
}

export async function stopServer(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL') {
  // An already-exited child never emits 'exit' again: waiting for it would hang the test.
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill(signal)
  await exited
}

export async function ownServerPage(browser: Browser, port: number, viewport = { width: 1280, height: 800 }) {
  const context = await browser.newContext({ baseURL: `http://127.0.0.1:${port}`, viewport })
  return { context, page: await context.newPage() }
}
