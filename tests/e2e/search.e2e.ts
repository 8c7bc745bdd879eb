import { expect, test, type Page } from '@playwright/test'
import { chatChunks, startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../fixtures/fake-openai'
import { configureProvider, openApp, snap } from './helpers'

// Issue 16: the conversation search finds a word that only a reply contains (not the title,
// not the question), shows it highlighted, and opens the conversation scrolled to that reply.
const KEY = 'sk-e2e-search-key-0123456789'
let fake: FakeOpenAI
/** Chat requests the fake answered (titles aside): a send counts when the server saw it, not when the list shows it. */
let asked = 0

test.describe.configure({ mode: 'serial' })

test.beforeAll(async () => {
  fake = await startFakeOpenAI()
  fake.setDefault('/chat/completions', (req: RecordedRequest) => {
    const body = req.body as { messages: { role: string; content: string }[] }
    const last = String(body.messages.at(-1)?.content ?? '')
    if (body.messages[0]?.content.startsWith('You write a title')) return { kind: 'sse', chunks: chatChunks(['Sorting ', 'talk']) }
    asked++
    if (last.includes('sorting')) return { kind: 'sse', chunks: chatChunks(['Try Quicksortzeta: ', 'it partitions around a pivot.']) }
    return { kind: 'sse', chunks: chatChunks([`Filler reply to ${last}.\n\n`, 'Line two.\n\nLine three.\n\nLine four.\n\nLine five.']) }
  })
})

test.afterAll(async () => fake.close())

async function send(page: Page, text: string) {
  const want = asked + 1
  // An Enter pressed while the previous reply is being saved is not a send; press it again then.
  await expect(async () => {
    if (asked < want) {
      await page.getByTestId('composer-input').fill(text)
      await page.getByTestId('composer-input').press('Enter')
    }
    await expect.poll(() => asked, { timeout: 2_000 }).toBe(want)
  }).toPass({ timeout: 20_000 })
  await expect(page.getByTestId('composer-input')).toHaveValue('')
  await expect(page.locator('[data-testid="message-assistant"][aria-busy="true"]')).toHaveCount(0)
}

test('search finds a word from a reply, highlights it and jumps to the message', async ({ page }) => {
  await configureProvider(page, 'openai', fake.url, KEY)
  await page.getByTestId('nav-chat').click()
  await page.getByTestId('model-picker').click()
  await page.getByTestId('model-search').fill('gpt-4o-mini')
  await page.getByTestId('pick-openai-gpt-4o-mini').first().click()
  await send(page, 'what about sorting?')
  for (let i = 0; i < 8; i++) await send(page, `filler question ${i}`)
  await openApp(page, '#/chat')

  await page.getByTestId('conversation-search').fill('nothing-matches-xqzv')
  await expect(page.getByTestId('search-no-results')).toHaveText('No results')
  // FTS syntax characters are words like any other: no error, just no results.
  await page.getByTestId('conversation-search').fill('"quick* AND (NOT')
  await expect(page.getByTestId('search-no-results')).toBeVisible()

  await page.getByTestId('conversation-search').fill('quicksortzeta')
  const hit = page.getByTestId('search-hit').first()
  await expect(hit).toContainText('Sorting talk')
  await expect(hit.locator('mark')).toHaveText('Quicksortzeta')
  await snap(page, 'search-results')
  await hit.click()
  const focused = page.locator('[data-highlighted="true"]')
  await expect(focused).toBeVisible()
  await expect(focused).toContainText('Quicksortzeta')
  await expect(focused).toBeInViewport()
  await snap(page, 'search-jump')

  // The sidebar's Chat entry comes back to this conversation, not to a new empty one.
  const url = page.url()
  await page.getByTestId('nav-settings').click()
  await page.getByTestId('nav-chat').click()
  await expect(page).toHaveURL(url)
  await expect(page.getByTestId('conversation-title')).toHaveText('Sorting talk')
  await expect(page.getByTestId('conversation-group').first()).toHaveText('Today')
})
