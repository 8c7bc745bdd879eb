import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { Core } from '../../../src/core'
import type { Contract } from '../../../src/shared/bridge/contract'
import type { BridgeClient } from '../../../src/shared/bridge/client'
import type { PullSnapshot } from '../../../src/shared/local/pull-progress'
import type { Result } from '../../../src/shared/errors/app-error'
import { closedPortUrl, startFakeOllama, type FakeOllama } from '../../fixtures/fake-ollama'
import { ok, startTestCore } from '../test-core'

let fake: FakeOllama
let core: Core
let client: BridgeClient<Contract>
let dataDir: string
const others: Server[] = []

/** A tiny OpenAI-style server standing in for vLLM / Xinference / LM Studio. */
async function openAiLike(routes: Record<string, unknown>): Promise<string> {
  const server = createServer((req, res) => {
    const body = routes[req.url ?? '']
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body ?? { error: 'not found' }))
  })
  others.push(server)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

beforeAll(async () => {
  fake = await startFakeOllama({ pacing: { linesPerLayer: 60, totalMs: 800 } })
  dataDir = mkdtempSync(join(tmpdir(), 'sb-local-'))
  // Started: the procedures stand before start-up, but a user-set address is kept in the
  // settings table, which start-up opens (decision 158).
  ;({ core, client } = await startTestCore('sb-local-', { dataDir }))
  const set = await client.call('local.setBaseUrl', { kind: 'ollama', baseUrl: `${fake.url}/api` })
  expect(set.ok).toBe(true)
})

afterAll(async () => {
  await core.close()
  await fake.close()
  for (const s of others) s.close()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('local models over the bridge', () => {
  it('detects the fake Ollama at the user-set base URL with its version, and remembers the URL', async () => {
    const [ollama] = ok(await client.call('local.detect', { kinds: ['ollama'] }))
    expect(ollama).toMatchObject({ kind: 'ollama', running: true, version: '0.12.3', custom: true, baseUrl: fake.url, modelCount: 2 })
    // Remembered in the settings table (decision 158), and no longer in a file of its own.
    expect(core.services().store.settings.features().ollama).toBe(fake.url)
    expect(core.services().local.detection.endpoints().ollama).toEqual({ baseUrl: fake.url, custom: true })
    expect(existsSync(join(dataDir, 'local-servers.json'))).toBe(false)
  })

  it('detects vLLM, Xinference and LM Studio by their own endpoints, and says why one is not running', async () => {
    const vllm = await openAiLike({ '/version': { version: '0.11.0' }, '/v1/models': { object: 'list', data: [{ id: 'Qwen/Qwen3-8B' }] } })
    const xinf = await openAiLike({ '/v1/cluster/version': { version: '1.10.1', 'full-revisionid': 'abc' }, '/v1/models': { object: 'list', data: [] } })
    const lms = await openAiLike({ '/v1/models': { data: [{ id: 'a' }, { id: 'b' }] } })
    expect(ok(await client.call('local.setBaseUrl', { kind: 'vllm', baseUrl: `${vllm}/v1` }))).toMatchObject({ running: true, version: '0.11.0', modelCount: 1 })
    expect(ok(await client.call('local.setBaseUrl', { kind: 'xinference', baseUrl: xinf }))).toMatchObject({ running: true, version: '1.10.1', modelCount: 0 })
    const lm = ok(await client.call('local.setBaseUrl', { kind: 'lmstudio', baseUrl: lms }))
    expect(lm).toMatchObject({ running: true, modelCount: 2 })
    expect(lm.version).toBeUndefined()
    // Ollama's address is not a vLLM server: answered, but not as vLLM
    const wrong = ok(await client.call('local.setBaseUrl', { kind: 'vllm', baseUrl: fake.url }))
    expect(wrong.running).toBe(false)
    expect(wrong.reason).toMatch(/not vLLM/)
    expect(wrong.reasonCode).toBe('wrongServer')
    const down = ok(await client.call('local.setBaseUrl', { kind: 'vllm', baseUrl: await closedPortUrl() }))
    expect(down).toMatchObject({ running: false })
    expect(down.reason).toMatch(/refused/)
    expect(down.reasonCode).toBe('refused')
    const reset = ok(await client.call('local.setBaseUrl', { kind: 'vllm', baseUrl: null }))
    expect(reset).toMatchObject({ baseUrl: 'http://127.0.0.1:8000', custom: false })
    expect(core.services().local.detection.endpoints().xinference).toEqual({ baseUrl: xinf, custom: true })
  })

  it('lists installed and running models and shows details', async () => {
    const models = ok(await client.call('local.ollama.models', {}))
    expect(models.map((m) => m.name)).toEqual(['llama3.2:latest', 'qwen3:0.6b'])
    expect(models[0]).toMatchObject({ sizeBytes: 2_019_393_189, family: 'llama', parameterSize: '3.2B', quantization: 'Q4_K_M', modifiedAt: '2026-10-02T09:14:11.123456789Z' })
    const running = ok(await client.call('local.ollama.running', {}))
    expect(running[0]).toMatchObject({ name: 'llama3.2:latest', contextLength: 4096 })
    expect(running[0]!.sizeVramBytes).toBeGreaterThan(0)
    const details = ok(await client.call('local.ollama.show', { model: 'qwen3:0.6b' }))
    expect(details).toMatchObject({ contextLength: 40_960, capabilities: ['completion', 'tools', 'thinking'], license: 'Apache License Version 2.0', architecture: 'qwen3' })
  })

  it('maps errors: unknown model → OllamaBizError with status_code; server down → OllamaServiceUnavailable; bad URL → InvalidOllamaArgs', async () => {
    const missing = await client.call('local.ollama.show', { model: 'nope:1b' })
    expect(missing.ok).toBe(false)
    if (!missing.ok) {
      expect(missing.error).toMatchObject({ errorType: 'OllamaBizError', status: 472, provider: 'ollama' })
      expect(missing.error.detail).toMatchObject({ status_code: 404, name: 'ResponseError', missingModel: 'nope:1b' })
    }
    const down = await client.call('local.ollama.models', { baseUrl: await closedPortUrl() })
    expect(down).toMatchObject({ ok: false, error: { errorType: 'OllamaServiceUnavailable', message: 'please check whether your ollama service is available', status: 472 } })
    const bad = await client.call('local.ollama.models', { baseUrl: 'http://bad host' })
    expect(bad).toMatchObject({ ok: false, error: { errorType: 'InvalidOllamaArgs', status: 401 } })
  })

  it('pulls through the bridge: throttled updates to the subscriber, exact end, listed while running, then deletes', async () => {
    const started = ok(await client.call('local.pull.start', { model: 'smollm2:135m' }))
    // The pull is a task of the hub: listed while it runs, followed by its task id.
    expect(ok(await client.call('tasks.active', { kind: 'pull' }))).toEqual([
      expect.objectContaining({ id: started.taskId, kind: 'pull', meta: { pullId: started.id, model: 'smollm2:135m', baseUrl: started.baseUrl } })
    ])
    const updates: PullSnapshot[] = []
    const end = await new Promise<Result<PullSnapshot | null>>((resolve) => {
      client.attach('local.pull.watch', started.taskId, { onEvent: (e) => updates.push(e), onEnd: resolve })
    })
    expect(end.ok).toBe(true)
    const last = updates.at(-1)!
    expect(last).toMatchObject({ phase: 'success', fraction: 1 })
    expect(last.completedBytes).toBe(fake.registry['smollm2:135m']!.layers.reduce((s, l) => s + l.size, 0))
    expect(updates.length).toBeLessThanOrEqual(12) // 0.8 s of progress at ≤ 10/s, plus first and last
    expect(ok(await client.call('local.ollama.models', {})).map((m) => m.name)).toContain('smollm2:135m')
    expect(ok(await client.call('local.pull.dismiss', { id: started.id }))).toEqual({ dismissed: true })
    expect(ok(await client.call('local.ollama.delete', { model: 'smollm2:135m' }))).toEqual({ deleted: 'smollm2:135m' })
    expect(ok(await client.call('local.ollama.models', {})).map((m) => m.name)).not.toContain('smollm2:135m')
  })

  it('cancels a pull over the bridge with status cancelled (499)', async () => {
    fake.pacing = { linesPerLayer: 60, totalMs: 3_000 }
    const started = ok(await client.call('local.pull.start', { model: 'tinyllama' }))
    let latest: PullSnapshot | undefined
    client.attach('local.pull.watch', started.taskId, { onEvent: (e) => (latest = e) })
    await vi.waitFor(() => expect(latest?.completedBytes).toBeGreaterThan(0))
    expect(ok(await client.call('local.pull.cancel', { id: started.id }))).toEqual({ cancelled: true })
    const end = await new Promise<Result<PullSnapshot | null>>((resolve) => client.stream('local.pull.watch', { id: started.id }, { onEnd: resolve }))
    expect(end).toMatchObject({ ok: true, value: { phase: 'cancelled', error: { status: 499 } } })
  })

  it('rejects a model name that is not one', async () => {
    const bad = await client.call('local.pull.start', { model: 'a b' })
    expect(bad).toMatchObject({ ok: false, error: { errorType: 'ValidationError' } })
  })
})
