import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { Core } from '../../../src/core'
import { MemoryBackend } from '../../../src/core/secrets'
import { startTestCore } from '../test-core'

let core: Core | undefined
let root: string | undefined
afterEach(async () => {
  await core?.close()
  core = undefined
  if (root) rmSync(root, { recursive: true, force: true })
})

const mode = (path: string) => statSync(path).mode & 0o777

/** Every file and folder under `dir`, with its permission bits. */
function modes(dir: string): Array<{ path: string; mode: number; dir: boolean }> {
  const out: Array<{ path: string; mode: number; dir: boolean }> = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    const isDir = statSync(path).isDirectory()
    out.push({ path, mode: mode(path), dir: isDir })
    if (isDir) out.push(...modes(path))
  }
  return out
}

describe.runIf(process.platform !== 'win32')('files on disk are private (POSIX)', () => {
  it('the data folder is 0700; the database, its WAL, backups and uploads are 0600, and an older loose folder is tightened', async () => {
    root = mkdtempSync(join(tmpdir(), 'sb-perms-'))
    const dataDir = join(root, 'data')
    // As an older version (or a loose umask) left it.
    mkdirSync(join(dataDir, 'files'), { recursive: true, mode: 0o755 })
    chmodSync(dataDir, 0o755)
    writeFileSync(join(dataDir, 'files', 'old-upload.txt'), 'old', { mode: 0o644 })

    const app = await startTestCore('sb-perms-', { dataDir, secrets: { backend: new MemoryBackend() } })
    core = app.core
    expect(app.state.phase).toBe('ready')
    const { client } = app
    const agent = await client.call('data.agents.create', { name: 'Private' })
    if (!agent.ok) throw new Error(agent.error.message)
    await client.call('data.conversations.create', { agentId: agent.value.id, title: 'x' })
    const upload = await client.call('files.upload', { name: 'notes.txt', mimeType: 'text/plain', dataBase64: Buffer.from('secret notes').toString('base64') })
    expect(upload.ok).toBe(true)
    const store = core.services().store
    expect(store.backups?.backup('auto')).toBe(true)

    expect(mode(dataDir)).toBe(0o700)
    const all = modes(dataDir)
    expect(all.filter((e) => e.path.endsWith('.db')).length).toBeGreaterThanOrEqual(2) // the database and a backup
    expect(all.some((e) => e.path.endsWith('-wal'))).toBe(true)
    expect(all.filter((e) => !e.path.endsWith('notes.txt')).some((e) => e.path.includes(join('data', 'files')))).toBe(true)
    for (const entry of all) expect(entry.mode.toString(8), entry.path).toBe(entry.dir ? '700' : '600')
  })

  it('knowledge files (uploaded and added from a path) are 0600 in a 0700 knowledge folder', async () => {
    root = mkdtempSync(join(tmpdir(), 'sb-perms-kb-'))
    const dataDir = join(root, 'data')
    const app = await startTestCore('sb-perms-', { dataDir, secrets: { backend: new MemoryBackend() } })
    core = app.core
    expect(app.state.phase).toBe('ready')
    const { client } = app
    const kb = await client.call('knowledge.create', { name: 'Private', providerId: 'openai', modelId: 'text-embedding-3-small' })
    if (!kb.ok) throw new Error(kb.error.message)
    const transfer = await client.call('files.transferCreate', {})
    if (!transfer.ok) throw new Error(transfer.error.message)
    await client.call('files.transferAppend', { transferId: transfer.value.transferId, chunk: new TextEncoder().encode('# uploaded notes') })
    await client.call('knowledge.upload', { kbId: kb.value.id, name: 'a.md', transferId: transfer.value.transferId })
    const source = join(root, 'b.md')
    writeFileSync(source, '# notes from a path', { mode: 0o644 })
    await client.call('knowledge.addPaths', { kbId: kb.value.id, paths: [source] })
    const knowledge = join(dataDir, 'knowledge')
    expect(mode(knowledge).toString(8)).toBe('700')
    const files = readdirSync(knowledge)
    expect(files).toHaveLength(2)
    for (const name of files) expect(mode(join(knowledge, name)).toString(8), name).toBe('600')
  })
})
