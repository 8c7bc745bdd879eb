import { expect, test, type Page } from '@playwright/test'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openApp, snap, TOKEN } from './helpers'

test('Settings → Your data: import previews the file, asks about its provider addresses, then imports; export downloads', async ({ page }) => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-e2e-data-'))
  const file = join(dir, 'export.json')
  // An export file as Switchboard writes it, with a provider address in it, saved with a
  // byte-order mark as some editors do.
  const at = 1_700_000_000_000
  const conversations = [0, 1, 2, 3].map((c) => ({ id: `e2e-data-c${c}`, agentId: 'e2e-data-agent', title: `Imported ${c}`, pinned: false, createdAt: at, updatedAt: at }))
  const messages = Array.from({ length: 400 }, (_, i) => ({
    id: `e2e-data-m${i}`,
    conversationId: `e2e-data-c${Math.floor(i / 100)}`,
    role: i % 2 ? 'assistant' : 'user',
    content: [{ type: 'text', text: `imported message ${i}` }],
    status: 'complete',
    createdAt: at + i,
    updatedAt: at + i
  }))
  const exportFile = {
    format: 'switchboard-export',
    version: 1,
    appVersion: 'e2e',
    exportedAt: at,
    data: {
      agents: [{ id: 'e2e-data-agent', name: 'Imported', systemPrompt: '', parameters: {}, tags: [], createdAt: at, updatedAt: at }],
      conversations,
      topics: [],
      messages,
      settings: {},
      providers: [{ providerId: 'mistral', enabled: true, baseUrl: 'https://proxy.example.net/v1', modelOverrides: {} }]
    }
  }
  writeFileSync(file, '\uFEFF' + JSON.stringify(exportFile))

  await openApp(page, '#/settings')
  await expect(page.getByTestId('about')).toContainText('Browser', { timeout: 20_000 }) // the lazily loaded Settings page, on a busy machine
  const section = page.getByTestId('data-section')
  await section.getByTestId('data-import-file').setInputFiles(file)
  const preview = section.getByTestId('data-import-preview')
  // Either the preview or a message comes; a message here would be the failure to show.
  await expect(preview.or(section.getByTestId('data-message'))).toBeVisible({ timeout: 30_000 })
  if (!(await preview.isVisible())) expect(await section.getByTestId('data-message').textContent()).toBe('a preview, not a message')
  await expect(preview).toContainText('adds 4 conversations and 400 messages')
  await expect(preview.getByTestId('data-import-endpoints')).toContainText('mistral: https://proxy.example.net/v1')
  await snap(page, 'data-import-preview')
  await preview.getByTestId('data-import-confirm').click()
  await expect(section.getByTestId('data-message')).toContainText('Imported 4 conversations and 400 messages', { timeout: 30_000 })
  // The page shows the imported data at once, without a reload by hand (issue 29).
  await page.getByTestId('nav-chat').click()
  await expect(page.getByTestId('agent-list')).toContainText('Imported')
  await page.getByTestId('nav-settings').click()

  const download = page.waitForEvent('download')
  await section.getByTestId('data-export').click()
  const saved = await download
  expect(saved.suggestedFilename()).toMatch(/^switchboard-export-\d{4}-\d{2}-\d{2}\.json$/)
  const exported = JSON.parse(readFileSync((await saved.path())!, 'utf8')) as { data: { messages: Array<{ id: string }>; providers?: Array<{ providerId: string; baseUrl?: string }> } }
  expect(exported.data.messages.filter((m) => m.id.startsWith('e2e-data-'))).toHaveLength(400)
  // The address was not applied: the user imported without it.
  expect(exported.data.providers?.find((p) => p.providerId === 'mistral')?.baseUrl).toBeUndefined()
  await expect(section.getByTestId('data-message')).toContainText('Exported')
})

// Issue 16, Settings → Data: export → import into a FRESH data folder (a second server process)
// gives the same conversations; a selection exports only what was chosen; the spec's import
// errors show in the page; a backup is restored after a copy of the data is kept.

type ExportFile = {
  data: {
    agents: Array<{ id: string; name: string }>
    conversations: Array<{ id: string; title: string; agentId: string; createdAt: number }>
    messages: Array<{ id: string; conversationId: string; content: unknown }>
  }
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })

/** A second Switchboard server on its own, empty data folder. */
async function startFreshServer(): Promise<{ base: string; dir: string; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-e2e-fresh-'))
  const port = await freePort()
  const child: ChildProcess = spawn(process.execPath, ['out/main/server.js', '--port', String(port), '--token', TOKEN], {
    env: { ...process.env, SWITCHBOARD_DATA_DIR: join(dir, 'data'), E2E: '1' },
    stdio: 'ignore'
  })
  const base = `http://127.0.0.1:${port}`
  await expect
    .poll(async () => {
      try {
        return (await fetch(`${base}/healthz`)).ok
      } catch {
        return false
      }
    }, { timeout: 30_000 })
    .toBe(true)
  return {
    base,
    dir,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r))
        child.kill('SIGTERM')
        await exited
      }
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

const at = 1_700_000_000_000
/** An export file as Switchboard writes it: one agent, `n` conversations of two messages. */
function exportFile(prefix: string, n: number, title = (i: number) => `${prefix} chat ${i}`) {
  return {
    format: 'switchboard-export',
    version: 1,
    appVersion: 'e2e',
    exportedAt: at,
    data: {
      agents: [{ id: `${prefix}-agent`, name: `${prefix} agent`, systemPrompt: '', parameters: {}, tags: [], createdAt: at, updatedAt: at }],
      conversations: Array.from({ length: n }, (_, c) => ({ id: `${prefix}-c${c}`, agentId: `${prefix}-agent`, title: title(c), pinned: false, createdAt: at + c, updatedAt: at + c })),
      topics: [],
      messages: Array.from({ length: n * 2 }, (_, i) => ({
        id: `${prefix}-m${i}`,
        conversationId: `${prefix}-c${Math.floor(i / 2)}`,
        role: i % 2 ? 'assistant' : 'user',
        content: [{ type: 'text', text: `${prefix} message ${i}` }],
        status: 'complete',
        createdAt: at + i,
        updatedAt: at + i
      })),
      settings: {}
    }
  }
}

const dir = mkdtempSync(join(tmpdir(), 'sb-e2e-data-page-'))
test.afterAll(() => rmSync(dir, { recursive: true, force: true }))

function writeJson(name: string, value: unknown): string {
  const path = join(dir, name)
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value))
  return path
}

async function importThroughPage(page: Page, file: string, expectNew?: { conversations: number; messages: number }) {
  const section = page.getByTestId('data-section')
  await section.getByTestId('data-import-file').setInputFiles(file)
  const preview = section.getByTestId('data-import-preview')
  await expect(preview.or(section.getByTestId('data-error'))).toBeVisible({ timeout: 30_000 })
  if (!(await preview.isVisible())) expect(await section.getByTestId('data-error').textContent()).toBe('a preview, not an error')
  if (expectNew) {
    await expect(preview.getByTestId('import-summary-conversations').getByTestId('import-new')).toHaveText(String(expectNew.conversations))
    await expect(preview.getByTestId('import-summary-messages').getByTestId('import-new')).toHaveText(String(expectNew.messages))
  }
  await preview.getByTestId('data-import-confirm').click()
  await expect(section.getByTestId('data-message')).toContainText('Imported', { timeout: 30_000 })
}

async function exportEverything(page: Page): Promise<ExportFile> {
  const section = page.getByTestId('data-section')
  const download = page.waitForEvent('download')
  await section.getByTestId('data-export').click()
  return JSON.parse(readFileSync((await (await download).path())!, 'utf8')) as ExportFile
}

test('export everything, import it into a fresh data folder: the same conversations and messages', async ({ page }) => {
  test.setTimeout(120_000)
  await openApp(page, '#/settings')
  await importThroughPage(page, writeJson('source.json', exportFile('e2e-move', 3)))
  const exported = await exportEverything(page)
  const moved = exported.data.conversations.filter((c) => c.id.startsWith('e2e-move-'))
  expect(moved).toHaveLength(3)
  const exportedPath = writeJson('everything.json', exported)

  const fresh = await startFreshServer()
  try {
    await page.goto(`${fresh.base}/?token=${TOKEN}#/settings`)
    await expect(page.getByRole('navigation')).toBeVisible({ timeout: 30_000 })
    // The summary says what is new before anything changes: everything, in a fresh folder.
    await importThroughPage(page, exportedPath, { conversations: exported.data.conversations.length, messages: exported.data.messages.length })
    await snap(page, 'data-page-fresh-import')
    const again = await exportEverything(page)
    const byId = <T extends { id: string }>(rows: T[]) => [...rows].sort((a, b) => a.id.localeCompare(b.id))
    expect(byId(again.data.conversations)).toEqual(byId(exported.data.conversations))
    expect(byId(again.data.messages)).toEqual(byId(exported.data.messages))

    // Importing the same file again adds nothing: all of it is already here, kept as it is.
    const section = page.getByTestId('data-section')
    await section.getByTestId('data-import-file').setInputFiles(exportedPath)
    const preview = section.getByTestId('data-import-preview')
    await expect(preview.getByTestId('import-summary-conversations').getByTestId('import-new')).toHaveText('0')
    await expect(preview.getByTestId('import-summary-conversations').getByTestId('import-existing')).toHaveText(String(exported.data.conversations.length))

    // The conversations are there to open.
    await page.goto(`${fresh.base}/?token=${TOKEN}#/chat/e2e-move-c1`)
    await expect(page.getByText('e2e-move message 3')).toBeVisible({ timeout: 30_000 })
  } finally {
    await fresh.stop()
  }
})

test('export a selection: only the chosen conversation, with its agent', async ({ page }) => {
  await openApp(page, '#/settings')
  await importThroughPage(page, writeJson('pick.json', exportFile('e2e-pick', 3, (i) => `Pick me ${i}`)))
  const section = page.getByTestId('data-section')
  await section.getByTestId('data-export-selected').click()
  const chooser = section.getByTestId('export-chooser')
  await chooser.getByTestId('export-filter').fill('Pick me')
  await chooser.getByTestId('export-conversation-Pick me 1').check()
  await expect(chooser.getByTestId('export-selected-confirm')).toHaveText('Export 1 conversations')
  const download = page.waitForEvent('download')
  await chooser.getByTestId('export-selected-confirm').click()
  const saved = await download
  expect(saved.suggestedFilename()).toMatch(/-selection\.json$/)
  const file = JSON.parse(readFileSync((await saved.path())!, 'utf8')) as ExportFile
  expect(file.data.conversations.map((c) => c.title)).toEqual(['Pick me 1'])
  expect(file.data.agents.map((a) => a.id)).toEqual(['e2e-pick-agent'])
  expect(file.data.messages.map((m) => m.id)).toEqual(['e2e-pick-m2', 'e2e-pick-m3'])
})

test('the spec import errors show in the page: ImportFailed for a damaged file, FileIncompatible for a newer one', async ({ page }) => {
  await openApp(page, '#/settings')
  const section = page.getByTestId('data-section')
  const json = JSON.stringify(exportFile('e2e-bad', 1))
  await section.getByTestId('data-import-file').setInputFiles(writeJson('cut.json', json.slice(0, json.length / 2)))
  await expect(section.getByTestId('data-error')).toHaveAttribute('data-error-type', 'ImportFailed')
  await expect(section.getByTestId('data-error')).toContainText('The import failed.')
  await expect(section.getByTestId('data-error-detail')).toContainText('not valid JSON')
  await expect(section.getByTestId('data-import-preview')).toHaveCount(0)

  await section.getByTestId('data-import-file').setInputFiles(writeJson('newer.json', { ...exportFile('e2e-new', 1), version: 99 }))
  await expect(section.getByTestId('data-error')).toHaveAttribute('data-error-type', 'FileIncompatible')
  await expect(section.getByTestId('data-error')).toContainText('This file was exported by a newer version.')
  await snap(page, 'data-page-import-error')
})

test('a backup is restored: back up now, change the data, restore; the copy made first is listed', async ({ page }) => {
  test.setTimeout(120_000)
  // Its own server: a restore puts the whole data folder back, which the other specs must not see.
  const fresh = await startFreshServer()
  try {
    await page.goto(`${fresh.base}/?token=${TOKEN}#/settings`)
    await expect(page.getByRole('navigation')).toBeVisible({ timeout: 30_000 })
    await importThroughPage(page, writeJson('kept.json', exportFile('e2e-kept', 1, () => 'Kept through the restore')))
    const backups = page.getByTestId('backups')
    await backups.getByTestId('backup-now').click()
    await expect(backups.getByTestId('backups-note')).toHaveText('Backed up.')
    const manual = backups.getByTestId('backup-item').filter({ hasText: 'Made by you' })
    await expect(manual).toHaveCount(1)
    await expect(manual.getByTestId('backup-holds')).toContainText("1 conversation, 2 messages")

    await importThroughPage(page, writeJson('later.json', exportFile('e2e-later', 2, (i) => `Gone after the restore ${i}`)))
    await manual.getByTestId('backup-restore').click()
    await expect(manual.getByTestId('backup-confirm')).toContainText('a copy of your current data is kept')
    await manual.getByTestId('backup-restore-confirm').click()
    // The page starts again from the restored data and says what happened.
    await expect(page.getByTestId('backups-note')).toContainText('Restored the backup from', { timeout: 30_000 })
    const copy = page.getByTestId('backup-item').filter({ hasText: 'Before a restore' })
    await expect(copy.getByTestId('backup-holds')).toContainText('3 conversations, 6 messages')
    await snap(page, 'data-page-restored')

    const after = await exportEverything(page)
    expect(after.data.conversations.map((c) => c.title).sort()).toEqual(['Kept through the restore'])

    // The data folder: its path to copy (browser mode) and what uses the space.
    const folder = page.getByTestId('data-folder')
    await expect(folder.getByTestId('data-folder-path')).toHaveText(join(fresh.dir, 'data'))
    await expect(folder.getByTestId('data-folder-copy')).toBeVisible()
    await expect(folder.getByTestId('data-folder-open')).toHaveCount(0)
    await expect(folder.getByTestId('data-usage-conversations')).toContainText(/\d/)
    await expect(folder.getByTestId('data-unused')).toContainText('0 stored files are no longer used')
  } finally {
    await fresh.stop()
  }
})
