import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startFakeHfHub, sha256, type FakeHub } from '../fixtures/fake-hf-hub/server'
import { paddedModel } from '../fixtures/gguf-headers/write-gguf'

// Two CLI processes (or the app and the CLI) on one data folder pull the same file at once:
// one transfer serves both (the second waits on the first's lock and follows its bytes), and
// both end with the verified file.

const cli = resolve(import.meta.dirname, '../../out/main/cli.js')
const MB = 1024 * 1024
const model = paddedModel(10 * MB, 50)
let hub: FakeHub | undefined
afterEach(async () => {
  await hub?.close()
  hub = undefined
})

function pull(dataDir: string, url: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [cli, 'pull', 'hf:acme/Tiny-GGUF', '--hub', url, '--json'], { env: { ...process.env, SWITCHBOARD_DATA_DIR: dataDir, HF_TOKEN: '' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.once('exit', (code) => done({ code, stdout, stderr }))
  })
}

describe('two processes pulling one file', () => {
  it('share one transfer and both end with the verified file', async () => {
    hub = await startFakeHfHub([{ id: 'acme/Tiny-GGUF', files: [{ path: 'tiny-Q4_K_M.gguf', content: model }] }], { faults: { bytesPerSecond: 5 * MB } })
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-two-pulls-'))
    const first = pull(dataDir, hub.url)
    // The second starts while the first is mid-way.
    const part = join(dataDir, 'models', 'hf', 'acme', 'Tiny-GGUF', 'tiny-Q4_K_M.gguf.part')
    const deadline = Date.now() + 20_000
    while (!existsSync(part) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    const second = pull(dataDir, hub.url)
    const [a, b] = await Promise.all([first, second])
    expect(a.stderr).not.toMatch(/Failed/)
    expect(b.stderr).not.toMatch(/Failed/)
    expect([a.code, b.code]).toEqual([0, 0])
    const dest = join(dataDir, 'models', 'hf', 'acme', 'Tiny-GGUF', 'tiny-Q4_K_M.gguf')
    expect(sha256(readFileSync(dest))).toBe(sha256(model))
    // One transfer: the file's bytes once (and a little for a retried chunk), not twice or more.
    expect(hub.stats.bytesSent).toBeLessThan(model.length * 1.2)
    // The second followed the first's progress to the end.
    const last = b.stdout.trim().split('\n').map((l) => JSON.parse(l) as { phase: string; path?: string }).at(-1)!
    expect(last).toMatchObject({ phase: 'success', path: dest })
  }, 60_000)
})
