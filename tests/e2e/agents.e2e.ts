import { expect, test, type Page } from '@playwright/test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openApp, snap } from './helpers'

// Issue 16, agents: one agent imported from its file, duplicated, exported, and an agent with
// conversations deleted after the page said what happens to them.
const dir = mkdtempSync(join(tmpdir(), 'sb-e2e-agents-'))
test.afterAll(() => rmSync(dir, { recursive: true, force: true }))

const write = (name: string, value: unknown) => {
  const path = join(dir, name)
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value))
  return path
}

const agentFile = {
  format: 'switchboard-agent',
  version: 1,
  exportedAt: 1_700_000_000_000,
  agent: { name: 'E2E Reviewer', avatar: '🧐', systemPrompt: 'Review code carefully.', parameters: { temperature: 0.3 }, tags: ['code'] }
}

const agentButton = (page: Page, name: string) => page.getByTestId('agent-list').getByRole('button', { name, exact: true })

async function openAgentSettings(page: Page, name: string) {
  await agentButton(page, name).click()
  await expect(page.getByTestId('open-agent-settings')).toHaveText(name)
  await page.getByTestId('open-agent-settings').click()
  await expect(page.getByTestId('agent-settings')).toBeVisible()
}

test('an agent is imported from its file, duplicated and exported', async ({ page }) => {
  await openApp(page, '#/chat')
  // A damaged file says so in the catalogue's words and adds nothing.
  await page.getByTestId('agent-import-file').setInputFiles(write('cut.json', JSON.stringify(agentFile).slice(0, 30)))
  await expect(page.getByTestId('agent-list').getByTestId('data-error')).toHaveAttribute('data-error-type', 'ImportFailed')
  await page.getByTestId('agent-import-file').setInputFiles(write('newer.json', { ...agentFile, version: 9 }))
  await expect(page.getByTestId('agent-list').getByTestId('data-error')).toHaveAttribute('data-error-type', 'FileIncompatible')

  await page.getByTestId('agent-import-file').setInputFiles(write('agent.json', agentFile))
  await expect(agentButton(page, 'E2E Reviewer')).toBeVisible()
  await expect(page.getByTestId('open-agent-settings')).toHaveText('E2E Reviewer')
  await page.getByTestId('open-agent-settings').click()
  const dialog = page.getByTestId('agent-settings')
  await expect(dialog.getByTestId('agent-system-prompt')).toHaveValue('Review code carefully.')
  // Each agent shows its spend (nothing yet).
  await expect(dialog.getByTestId('agent-spend')).toContainText('on 0 calls')

  await dialog.getByTestId('agent-duplicate').click()
  await expect(dialog).toHaveCount(0)
  await expect(agentButton(page, 'E2E Reviewer (copy)')).toBeVisible()
  await expect(page.getByTestId('open-agent-settings')).toHaveText('E2E Reviewer (copy)')

  await page.getByTestId('open-agent-settings').click()
  const download = page.waitForEvent('download')
  await page.getByTestId('agent-settings').getByTestId('agent-export').click()
  const saved = await download
  expect(saved.suggestedFilename()).toBe('E2E Reviewer copy.switchboard-agent.json')
  const file = JSON.parse(readFileSync((await saved.path())!, 'utf8')) as typeof agentFile
  expect(file).toMatchObject({ format: 'switchboard-agent', version: 1, agent: { ...agentFile.agent, name: 'E2E Reviewer (copy)' } })
  // The exported file imports again, as a new agent under a name of its own.
  await page.keyboard.press('Escape')
  await page.getByTestId('agent-import-file').setInputFiles((await saved.path())!)
  await expect(agentButton(page, 'E2E Reviewer (copy) (2)')).toHaveCount(1)
  await expect(agentButton(page, 'E2E Reviewer (copy)')).toHaveCount(1)
  await snap(page, 'agents-imported')
})

test('deleting an agent says its conversations go with it, then deletes them', async ({ page }) => {
  const at = 1_700_000_000_000
  const exportFile = {
    format: 'switchboard-export',
    version: 1,
    appVersion: 'e2e',
    exportedAt: at,
    data: {
      agents: [{ id: 'e2e-doomed-agent', name: 'Doomed', systemPrompt: '', parameters: {}, tags: [], createdAt: at, updatedAt: at }],
      conversations: [0, 1].map((c) => ({ id: `e2e-doomed-c${c}`, agentId: 'e2e-doomed-agent', title: `Doomed chat ${c}`, pinned: false, createdAt: at, updatedAt: at })),
      topics: [],
      messages: [{ id: 'e2e-doomed-m0', conversationId: 'e2e-doomed-c0', role: 'user', content: [{ type: 'text', text: 'doomed words' }], status: 'complete', createdAt: at, updatedAt: at }],
      settings: {}
    }
  }
  await openApp(page, '#/settings')
  const section = page.getByTestId('data-section')
  await section.getByTestId('data-import-file').setInputFiles(write('doomed.json', exportFile))
  await section.getByTestId('data-import-preview').getByTestId('data-import-confirm').click()
  await expect(section.getByTestId('data-message')).toContainText('Imported 2 conversations')

  await openApp(page, '#/chat')
  await openAgentSettings(page, 'Doomed')
  const dialog = page.getByTestId('agent-settings')
  await dialog.getByTestId('agent-delete').click()
  await expect(dialog.getByTestId('agent-delete-confirm')).toContainText('Delete Doomed and its 2 conversations? They are deleted with it. A backup is made first')
  await dialog.getByTestId('agent-delete-confirm-button').click()
  await expect(dialog).toHaveCount(0)
  await expect(agentButton(page, 'Doomed')).toHaveCount(0)
  await expect(page.getByTestId('conversation-item').filter({ hasText: 'Doomed chat' })).toHaveCount(0)

  // The backup made first holds them: Settings → Data lists it.
  await openApp(page, '#/settings')
  await expect(page.getByTestId('backup-item').filter({ hasText: 'Automatic' }).first()).toBeVisible()
})
