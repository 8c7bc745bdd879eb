import { afterEach, describe, expect, it, vi } from 'vitest'
import { PullService } from '../../../src/core/local/pull-service'
import { closedPortUrl, fakeModel, startFakeOllama, type FakeOllama } from '../../fixtures/fake-ollama'
import type { PullSnapshot } from '../../../src/shared/local/pull-progress'

let fake: FakeOllama | undefined
let service: PullService | undefined
afterEach(async () => {
  await service?.close()
  await fake?.close()
  fake = undefined
  service = undefined
})

const noDisk = async () => undefined

async function collect(svc: PullService, id: string): Promise<PullSnapshot[]> {
  const seen: PullSnapshot[] = []
  for await (const snap of svc.watch(id)) seen.push(snap)
  return seen
}

const totalOf = (f: FakeOllama, name: string) => f.registry[name]!.layers.reduce((s, l) => s + l.size, 0)

describe('PullService against the fake Ollama', () => {
  it('pulls a model: progress only moves forward, ends exact, and the model is installed', async () => {
    fake = await startFakeOllama({ pacing: { linesPerLayer: 30, totalMs: 600 } })
    service = new PullService({ diskSpace: noDisk })
    const first = service.start({ model: 'tinyllama', baseUrl: fake.url })
    expect(first.phase).toBe('starting')
    const seen = await collect(service, first.id)
    const last = seen.at(-1)!
    expect(last.phase).toBe('success')
    expect(last.completedBytes).toBe(totalOf(fake, 'tinyllama:latest'))
    expect(last.totalBytes).toBe(last.completedBytes)
    expect(last.fraction).toBe(1)
    expect(last.layers).toHaveLength(4)
    for (let i = 1; i < seen.length; i++) {
      expect(seen[i]!.fraction).toBeGreaterThanOrEqual(seen[i - 1]!.fraction)
      expect(seen[i]!.completedBytes).toBeGreaterThanOrEqual(seen[i - 1]!.completedBytes)
    }
    expect(seen.some((s) => s.phase === 'downloading' && s.bytesPerSecond > 0 && s.etaSeconds !== undefined)).toBe(true)
    expect(fake.installed.has('tinyllama:latest')).toBe(true)
    expect(fake.requests.find((r) => r.path === '/api/pull')?.body).toMatchObject({ name: 'tinyllama', stream: true })
  })

  it('publishes at most ~10 updates a second whatever the server sends', async () => {
    fake = await startFakeOllama({ pacing: { linesPerLayer: 2_500, totalMs: 1_000 } })
    service = new PullService({ diskSpace: noDisk })
    const started = performance.now()
    const { id } = service.start({ model: 'tinyllama', baseUrl: fake.url })
    const seen = await collect(service, id)
    const seconds = (performance.now() - started) / 1000
    expect(seen.at(-1)!.phase).toBe('success')
    // initial + one per 100 ms + the final state
    expect(seen.length).toBeLessThanOrEqual(Math.ceil(seconds * 10) + 2)
    expect(seen.at(-1)!.completedBytes).toBe(totalOf(fake, 'tinyllama:latest'))
  })

  it('runs several pulls at once, each with its own state', async () => {
    fake = await startFakeOllama({ pacing: { linesPerLayer: 20, totalMs: 400 } })
    service = new PullService({ diskSpace: noDisk })
    const a = service.start({ model: 'tinyllama', baseUrl: fake.url })
    const b = service.start({ model: 'smollm2:135m', baseUrl: fake.url })
    expect(service.start({ model: 'tinyllama:latest', baseUrl: fake.url }).id).toBe(a.id)
    expect(service.list().filter((p) => !p.finishedAt)).toHaveLength(2)
    const [ra, rb] = await Promise.all([service.wait(a.id), service.wait(b.id)])
    expect(ra.completedBytes).toBe(totalOf(fake, 'tinyllama:latest'))
    expect(rb.completedBytes).toBe(totalOf(fake, 'smollm2:135m'))
  })

  it('cancel ends with status cancelled (499); pulling again resumes and says so', async () => {
    fake = await startFakeOllama({ pacing: { linesPerLayer: 40, totalMs: 2_000 } })
    service = new PullService({ diskSpace: noDisk })
    const { id } = service.start({ model: 'tinyllama', baseUrl: fake.url })
    const watch = collect(service, id)
    // Cancel once part of it arrived.
    await vi.waitFor(() => expect(service!.get(id)?.completedBytes).toBeGreaterThan(0))
    expect(service.cancel(id)).toBe(true)
    const seen = await watch
    const end = seen.at(-1)!
    expect(end.phase).toBe('cancelled')
    expect(end.error).toMatchObject({ status: 499 })
    expect(end.completedBytes).toBeGreaterThan(0)
    expect(end.completedBytes).toBeLessThan(end.totalBytes)
    await vi.waitFor(() => expect(fake!.activePulls()).toBe(0))

    fake.pacing = { linesPerLayer: 20, totalMs: 300 }
    const again = service.start({ model: 'tinyllama', baseUrl: fake.url })
    expect(again.previousAttempt).toMatchObject({ phase: 'cancelled' })
    // Issue 17: the resumed pull opens where the cancelled one stopped, not at 0 % "Starting…".
    expect(again.phase).toBe('downloading')
    expect(again.completedBytes).toBe(end.completedBytes)
    expect(again.fraction).toBeCloseTo(end.fraction)
    const done = await service.wait(again.id)
    expect(done.phase).toBe('success')
    expect(done.resumed).toBe(true)
    expect(done.resumedBytes).toBeGreaterThan(0)
    expect(done.completedBytes).toBe(totalOf(fake, 'tinyllama:latest'))
  })

  it('a first pull whose opening lines already carry bytes (Ollama reports on a timer) does not claim "Resumed"', async () => {
    fake = await startFakeOllama({ pacing: { linesPerLayer: 20, totalMs: 300, timerReports: true } })
    service = new PullService({ diskSpace: noDisk })
    const end = await service.wait(service.start({ model: 'tinyllama', baseUrl: fake.url }).id)
    expect(end.phase).toBe('success')
    expect(end.resumed).toBe(false)
  })

  it('an error line ends with status error (500) and the message', async () => {
    fake = await startFakeOllama({ pacing: { linesPerLayer: 20, totalMs: 300 } })
    fake.faults.errorLine = { afterBytes: 100_000_000, message: 'max retries exceeded: unexpected EOF' }
    service = new PullService({ diskSpace: noDisk })
    const { id } = service.start({ model: 'tinyllama', baseUrl: fake.url })
    const end = await service.wait(id)
    expect(end.phase).toBe('error')
    expect(end.error).toMatchObject({ status: 500, errorType: 'OllamaBizError', message: 'max retries exceeded: unexpected EOF' })
  })

  it('an unknown model fails with Ollama’s message', async () => {
    fake = await startFakeOllama()
    service = new PullService({ diskSpace: noDisk })
    const end = await service.wait(service.start({ model: 'no-such-model:1b', baseUrl: fake.url }).id)
    expect(end.phase).toBe('error')
    // Issue 17: said in the user's terms, and marked so the UI offers no "Resume".
    expect(end.error).toMatchObject({ notFound: true, message: '"no-such-model:1b" was not found in the Ollama library — check the name.' })
    const again = service.start({ model: 'no-such-model:1b', baseUrl: fake.url })
    expect(again.previousAttempt).toBeUndefined()
  })

  it('a connection reset mid-pull ends with status error', async () => {
    fake = await startFakeOllama({ pacing: { linesPerLayer: 20, totalMs: 300 } })
    fake.faults.resetAfterBytes = 200_000_000
    service = new PullService({ diskSpace: noDisk })
    const end = await service.wait(service.start({ model: 'tinyllama', baseUrl: fake.url }).id)
    expect(end.phase).toBe('error')
    expect(end.error?.status).toBe(500)
    expect(end.completedBytes).toBeGreaterThan(0)
  })

  it('a stalled pull is stopped by the idle watchdog as an error, not left hanging', async () => {
    fake = await startFakeOllama({ pacing: { linesPerLayer: 20, totalMs: 300 } })
    fake.faults.stallAfterBytes = 100_000_000
    service = new PullService({ diskSpace: noDisk, idleTimeoutMs: 300 })
    const end = await service.wait(service.start({ model: 'tinyllama', baseUrl: fake.url }).id)
    expect(end.phase).toBe('error')
    expect(end.error).toMatchObject({ status: 500, errorType: 'ProviderNetworkError' })
    expect(end.error?.message).toMatch(/no progress/)
  })

  it('server down: OllamaServiceUnavailable with the spec text', async () => {
    service = new PullService({ diskSpace: noDisk })
    const end = await service.wait(service.start({ model: 'tinyllama', baseUrl: await closedPortUrl() }).id)
    expect(end.phase).toBe('error')
    expect(end.error).toMatchObject({ errorType: 'OllamaServiceUnavailable', status: 500, message: 'please check whether your ollama service is available' })
  })

  it('passes insecure through and warns when the model will not fit on disk', async () => {
    fake = await startFakeOllama({ pacing: { linesPerLayer: 10, totalMs: 200 } })
    service = new PullService({ diskSpace: async () => ({ path: '/x', freeBytes: 1_000_000, totalBytes: 2_000_000 }) })
    const { id } = service.start({ model: 'tinyllama', baseUrl: fake.url, insecure: true })
    const seen = await collect(service, id)
    expect(seen.some((s) => s.disk?.willNotFit === true)).toBe(true)
    expect(seen.at(-1)!.disk?.willNotFit).toBe(false)
    expect(fake.requests.find((r) => r.path === '/api/pull')?.body).toMatchObject({ insecure: true })
  })

  it('rejects a name that is not a model name, and an unparsable base URL', () => {
    service = new PullService({ diskSpace: noDisk })
    expect(() => service!.start({ model: 'rm -rf /' })).toThrow(/not a model name/)
    expect(() => service!.start({ model: 'x', baseUrl: 'http://exa mple:99999' })).toThrow(/not a valid URL/)
  })

  it('keeps a pull registry-independent of watchers: a watcher that leaves does not stop it', async () => {
    fake = await startFakeOllama({ registry: { 'a:1': fakeModel('a', 10_000_000) }, pacing: { linesPerLayer: 10, totalMs: 300 } })
    service = new PullService({ diskSpace: noDisk })
    const { id } = service.start({ model: 'a:1', baseUrl: fake.url })
    const leave = new AbortController()
    const it = service.watch(id, leave.signal)
    await it.next()
    leave.abort()
    await it.next()
    expect((await service.wait(id)).phase).toBe('success')
  })
})
