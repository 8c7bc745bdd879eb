import { expect, test, type Page } from '@playwright/test'
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
  await expect(page.getByTestId('message-assistant').last()).toHaveAttribute('data-status', 'complete')
}

test('at 1280×800 the edit box of one\'s own message stays inside the column, and "Save" keeps the edit without sending', async ({ page }) => {
  await newChat(page, 'a question to edit later')
  const mine = page.getByTestId('message-user').last()
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
