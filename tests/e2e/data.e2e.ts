import { expect, test } from '@playwright/test'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeBigExport } from '../integration/data-safety/big-export'
import { openApp, snap } from './helpers'

test('Settings → Your data: import previews the file, asks about its provider addresses, then imports; export downloads', async ({ page }) => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-e2e-data-'))
  const file = join(dir, 'export.json')
  writeBigExport(file, 400, 'e2e-data')
  // The same file with a provider address in it, and a byte-order mark as some editors save.
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as { data: { providers: object[] } }
  parsed.data.providers = [{ providerId: 'mistral', enabled: true, baseUrl: 'https://proxy.example.net/v1', modelOverrides: {} }]
  writeFileSync(file, '\uFEFF' + JSON.stringify(parsed))

  await openApp(page, '#/settings')
  const section = page.getByTestId('data-section')
  await section.getByTestId('data-import-file').setInputFiles(file)
  const preview = section.getByTestId('data-import-preview')
  await expect(preview).toContainText('adds 4 conversations and 400 messages')
  await expect(preview.getByTestId('data-import-endpoints')).toContainText('mistral: https://proxy.example.net/v1')
  await snap(page, 'data-import-preview')
  await preview.getByTestId('data-import-confirm').click()
  await expect(section.getByTestId('data-message')).toContainText('Imported 4 conversations and 400 messages')

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
