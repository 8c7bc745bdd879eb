import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { logger } from '../../../src/core/log/logger'
import { ok, readyTestCore, startTestCore, type TestCore } from '../test-core'

// Decision 158: the local servers' addresses moved from <dataDir>/local-servers.json into the
// settings table. These cores start on a data folder holding the file as the old reader
// (LocalSettings, before 158) wrote it: `{ baseUrls: {...} }`, pretty-printed, mode 0600.

const dirs: string[] = []
const cores: TestCore[] = []

afterEach(async () => {
  vi.restoreAllMocks()
  for (const c of cores.splice(0)) await c.close()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function folderWith(content: string | undefined): string {
  const dir = mkdtempSync(join(tmpdir(), 'sb-local-move-'))
  dirs.push(dir)
  if (content !== undefined) writeFileSync(join(dir, 'local-servers.json'), content, { mode: 0o600 })
  return dir
}

const oldWay = (baseUrls: Record<string, unknown>) => `${JSON.stringify({ baseUrls }, null, 2)}\n`

async function ready(dataDir: string, start = true): Promise<TestCore> {
  const c = start ? await readyTestCore('sb-local-move-', { dataDir }) : await startTestCore('sb-local-move-', { dataDir, start: false })
  cores.push(c)
  return c
}

describe('local-servers.json moves into the settings table at start-up', () => {
  it('copies every address, renames the file .migrated (kept for a downgrade), and the bridge answers from the table', async () => {
    const file = oldWay({ ollama: 'http://127.0.0.1:1', vllm: 'http://gpu-box:8000' })
    const dataDir = folderWith(file)
    const { core, client } = await ready(dataDir)
    expect(existsSync(join(dataDir, 'local-servers.json'))).toBe(false)
    expect(readFileSync(join(dataDir, 'local-servers.json.migrated'), 'utf8')).toBe(file)
    const features = core.services().store.settings.features()
    expect({ ollama: features.ollama, vllm: features.vllm, lmstudio: features.lmstudio }).toEqual({ ollama: 'http://127.0.0.1:1', vllm: 'http://gpu-box:8000', lmstudio: undefined })
    const [ollama] = ok(await client.call('local.detect', { kinds: ['ollama'] }))
    expect(ollama).toMatchObject({ baseUrl: 'http://127.0.0.1:1', custom: true })
    expect(core.services().local.detection.endpoints()).toMatchObject({ vllm: { baseUrl: 'http://gpu-box:8000', custom: true }, lmstudio: { custom: false } })
  })

  it('leaves a bad value out and logs it; the good ones are copied and start-up is ready', async () => {
    const warn = vi.spyOn(logger, 'warn')
    const dataDir = folderWith(oldWay({ ollama: 42, lmstudio: '', vllm: 'http://127.0.0.1:8001', xinference: null }))
    const { core } = await ready(dataDir)
    const features = core.services().store.settings.features()
    expect([features.ollama, features.lmstudio, features.vllm, features.xinference]).toEqual([undefined, undefined, 'http://127.0.0.1:8001', undefined])
    const said = warn.mock.calls.map((call) => String(call[1]))
    for (const kind of ['ollama', 'lmstudio', 'xinference']) expect(said.some((line) => line.includes(`the ${kind} address`))).toBe(true)
    expect(existsSync(join(dataDir, 'local-servers.json.migrated'))).toBe(true)
  })

  it('a file that is not JSON is logged and renamed; every server keeps its default', async () => {
    const warn = vi.spyOn(logger, 'warn')
    const dataDir = folderWith('{ "baseUrls": { "ollama": ')
    const { core } = await ready(dataDir)
    expect(core.services().local.detection.endpoints().ollama).toEqual({ baseUrl: 'http://127.0.0.1:11434', custom: false })
    expect(warn.mock.calls.some((call) => String(call[1]).includes('is not JSON'))).toBe(true)
    expect(existsSync(join(dataDir, 'local-servers.json'))).toBe(false)
    expect(existsSync(join(dataDir, 'local-servers.json.migrated'))).toBe(true)
  })

  it('after a crash between the copy and the rename, the next start-up overwrites nothing the table holds and copies only what is missing', async () => {
    const dataDir = folderWith(undefined)
    const first = await ready(dataDir)
    // What the user set since the copy (or what the copy wrote before the crash) is in the table.
    first.core.services().store.settings.save({ ollama: 'http://set-since:11434' })
    await first.close()
    cores.splice(cores.indexOf(first), 1)
    writeFileSync(join(dataDir, 'local-servers.json'), oldWay({ ollama: 'http://from-file:11434', lmstudio: 'http://from-file:1234' }))
    const second = await ready(dataDir)
    const features = second.core.services().store.settings.features()
    expect([features.ollama, features.lmstudio]).toEqual(['http://set-since:11434', 'http://from-file:1234'])
    expect(existsSync(join(dataDir, 'local-servers.json'))).toBe(false)
  })

  it('runs once: a restart with only the .migrated file changes nothing, and later changes are kept', async () => {
    const dataDir = folderWith(oldWay({ ollama: 'http://127.0.0.1:1' }))
    const first = await ready(dataDir)
    first.core.services().store.settings.save({ ollama: null })
    await first.close()
    cores.splice(cores.indexOf(first), 1)
    const second = await ready(dataDir)
    expect(second.core.services().store.settings.features().ollama).toBeUndefined()
    expect(readFileSync(join(dataDir, 'local-servers.json.migrated'), 'utf8')).toBe(oldWay({ ollama: 'http://127.0.0.1:1' }))
  })

  it('before start-up opened the store, detection uses the defaults and setting an address answers not ready', async () => {
    const dataDir = folderWith(oldWay({ ollama: 'http://127.0.0.1:1' }))
    const { client } = await ready(dataDir, false)
    const set = await client.call('local.setBaseUrl', { kind: 'ollama', baseUrl: 'http://127.0.0.1:2' })
    expect(set.ok ? undefined : set.error.errorType).toBe('DataNotReady')
    // The file is only moved by a start-up that opened the store.
    expect(existsSync(join(dataDir, 'local-servers.json'))).toBe(true)
  })
})
