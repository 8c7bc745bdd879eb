import { expect, test, type Page } from '@playwright/test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chatChunks, startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../fixtures/fake-openai'
import { configureProvider, pickModel } from './helpers'

// Smaller things a first-use walk found: the edit box of one's own message, the Continue of a
// word cut in the middle, the z-order of the conversations toggle, the offline banner.
let fake: FakeOpenAI

test.describe.configure({ mode: 'serial' })

test.beforeAll(async () => {
  fake = await startFakeOpenAI()
  fake.setDefault('/chat/completions', (req: RecordedRequest) => {
    const body = req.body as { messages: { role: string; content: string }[] }
    const last = String(body.messages.at(-1)?.content ?? '')
    if (body.messages[0]?.content.startsWith('You write a title')) return { kind: 'sse', chunks: chatChunks(['Minor ', 'checks']) }
    return { kind: 'sse', chunks: chatChunks([`You said: ${last}.`]) }
  })
})
test.afterAll(async () => fake.close())

async function newChat(page: Page, first: string) {
  await configureProvider(page, 'openai', fake.url, 'sk-minors-test-0001')
  await page.getByTestId('nav-chat').click()
  await page.getByTestId('new-chat').click()
  await pickModel(page, 'openai', 'gpt-4o-mini')
  await page.getByTestId('composer-input').fill(first)
  await page.getByTestId('composer-input').press('Enter')
  await expect(page.getByTestId('message-assistant').last()).toHaveAttribute('data-status', 'complete', { timeout: 20_000 })
}

test('at 1280×800 the edit box of one\'s own message stays inside the column, and "Save" keeps the edit without sending', async ({ page }) => {
  await newChat(page, 'a question to edit later')
  const mine = page.getByTestId('message-user').last()
  // The bubble holds its text and its padding, no empty line below it.
  const bubble = (await mine.getByTestId('user-bubble').boundingBox())!
  const words = (await mine.getByTestId('message-text').boundingBox())!
  expect(bubble.y + bubble.height - (words.y + words.height)).toBeLessThanOrEqual(10)
  await mine.hover()
  await mine.getByTestId('op-edit').click()
  const box = (await mine.getByTestId('edit-input').boundingBox())!
  const column = (await page.getByTestId('message-list').boundingBox())!
  expect(box.x).toBeGreaterThanOrEqual(column.x)
  expect(box.x + box.width).toBeLessThanOrEqual(column.x + column.width)
  expect(await page.getByTestId('message-list').evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true)
  await expect(mine.getByTestId('edit-save')).toHaveText('Save & send')
  const requests = fake.requestsTo('/chat/completions').length
  await mine.getByTestId('edit-input').fill('the question, edited')
  await mine.getByTestId('edit-save-only').click()
  await expect(mine.getByTestId('message-text')).toHaveText('the question, edited')
  await expect(page.getByTestId('message-assistant')).toHaveCount(1)
  await expect(page.getByTestId('branch-switch')).toHaveCount(0)
  await page.waitForTimeout(500)
  expect(fake.requestsTo('/chat/completions').length).toBe(requests)
  await page.reload()
  await expect(page.getByTestId('message-user').last().getByTestId('message-text')).toHaveText('the question, edited')
})

test('the conversations toggle stays under a dialog\'s backdrop', async ({ page }) => {
  await newChat(page, 'z-order')
  const toggle = page.getByTestId('toggle-conversations')
  const b = (await toggle.boundingBox())!
  const topAt = (x: number, y: number) => page.evaluate(([px, py]) => document.elementFromPoint(px!, py!)?.closest('[data-testid]')?.getAttribute('data-testid') ?? '', [x, y])
  expect(await topAt(b.x + b.width / 2, b.y + b.height / 2)).toBe('toggle-conversations')
  await page.getByTestId('model-picker').click()
  await expect(page.getByTestId('model-search')).toBeVisible()
  expect(await topAt(b.x + b.width / 2, b.y + b.height / 2)).not.toBe('toggle-conversations')
  await page.keyboard.press('Escape')
})

test('agents: "+" opens the editor of the new agent; one file imported twice gives two names; the default agent stays first after a delete', async ({ page }) => {
  await newChat(page, 'agents please')
  // A new chat with a model already chosen does not ask to pick one.
  await page.getByTestId('new-chat').click()
  await expect(page.getByTestId('model-chip-model')).toContainText('mini')
  await expect(page.getByTestId('chat-empty-hint')).not.toContainText('Pick a model')
  const list = page.getByTestId('agent-list')
  await page.getByTestId('new-agent').click()
  const dialog = page.getByTestId('agent-settings')
  await expect(dialog).toBeVisible()
  await expect(dialog.getByTestId('agent-name')).toHaveValue('New agent')
  await dialog.getByTestId('agent-name').fill('Walk doomed agent')
  await dialog.getByTestId('agent-save').click()
  await expect(dialog).toHaveCount(0)

  const dir = mkdtempSync(join(tmpdir(), 'sb-e2e-minors-'))
  try {
    const file = join(dir, 'twice.json')
    writeFileSync(file, JSON.stringify({ format: 'switchboard-agent', version: 1, exportedAt: 1_700_000_000_000, agent: { name: 'Twice imported', systemPrompt: 'x', parameters: {}, tags: [] } }))
    await page.getByTestId('agent-import-file').setInputFiles(file)
    await expect(list.getByRole('button', { name: 'Twice imported', exact: true })).toBeVisible()
    await page.getByTestId('agent-import-file').setInputFiles(file)
    await expect(list.getByRole('button', { name: 'Twice imported (2)', exact: true })).toBeVisible()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }

  await list.getByRole('button', { name: 'Walk doomed agent', exact: true }).click()
  await page.getByTestId('open-agent-settings').click()
  await dialog.getByTestId('agent-delete').click()
  await dialog.getByTestId('agent-delete-confirm-button').click()
  await expect(list.getByRole('button', { name: 'Walk doomed agent', exact: true })).toHaveCount(0)
  await expect(list.locator('li').first()).toHaveAttribute('data-default', 'true')
  await page.reload()
  await expect(list.locator('li').first()).toHaveAttribute('data-default', 'true')
})

test.describe('at 1024×700', () => {
  test.use({ viewport: { width: 1024, height: 700 } })
  test('the empty composer does not wrap its placeholder into a scrolling box; a long title leaves the agent button on one line', async ({ page }) => {
    await newChat(page, 'a long question whose title could be long enough to crowd the header of the chat page at this width')
    const item = page.locator('li', { has: page.locator('[data-testid="conversation-item"][aria-current="page"]') })
    await item.hover()
    await item.getByTestId('rename').click()
    await page.getByTestId('rename-input').fill('A very long conversation title that goes on and on about layouts at narrow widths and more')
    await page.getByTestId('rename-input').press('Enter')
    await expect(page.getByTestId('conversation-title')).toContainText('A very long conversation title')
    const input = page.getByTestId('composer-input')
    await expect(input).toHaveValue('')
    expect(await input.evaluate((el) => el.scrollHeight <= el.clientHeight + 1)).toBe(true)
    const agent = (await page.getByTestId('open-agent-settings').boundingBox())!
    expect(agent.height).toBeLessThan(36)
  })
})
