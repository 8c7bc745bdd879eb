import { expect, test } from '@playwright/test'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openApp, snap } from './helpers'

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
  await expect(page.getByTestId('about')).toContainText('Browser')
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
