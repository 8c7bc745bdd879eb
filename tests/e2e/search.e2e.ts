import { expect, test, type Page } from '@playwright/test'
import { chatChunks, startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../fixtures/fake-openai'
import { configureProvider, openApp, pickModel, sendAndWait, snap } from './helpers'

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

const send = (page: Page, text: string) => sendAndWait(page, text, () => asked)

test('search finds a word from a reply, highlights it and jumps to the message', async ({ page }) => {
  await configureProvider(page, 'openai', fake.url, KEY)
  await page.getByTestId('nav-chat').click()
  await pickModel(page, 'openai', 'gpt-4o-mini')
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
  // Settings loads on first visit: leave the chat for real (a click back before it shows keeps the chat as it was).
  await expect(page.getByTestId('page-settings')).toBeVisible()
  await page.getByTestId('nav-chat').click()
  await expect(page).toHaveURL(url)
  await expect(page.getByTestId('conversation-title')).toHaveText('Sorting talk')
  await expect(page.getByTestId('conversation-group').first()).toHaveText('Today')
})

test('Ctrl/Cmd+K: the palette finds a message by a two-character Chinese query, filters by model and date, and opens it from the keyboard', async ({ page }) => {
  await configureProvider(page, 'openai', fake.url, KEY)
  await page.getByTestId('nav-chat').click()
  await page.getByTestId('new-chat').click()
  await pickModel(page, 'openai', 'gpt-4o-mini')
  await send(page, '请解释快速排序的原理')
  await openApp(page, '#/settings')

  await page.keyboard.press('Control+k')
  const palette = page.getByTestId('command-palette')
  await expect(palette).toBeVisible()
  await expect(page.getByTestId('palette-input')).toBeFocused()
  // Settings pages and actions are there before typing.
  await expect(palette.getByTestId('palette-item').filter({ hasText: 'Settings → Data' })).toBeVisible()

  // Two characters: below the trigram index's three, found by the bounded scan.
  await page.getByTestId('palette-input').fill('排序')
  const message = palette.locator('[data-testid="palette-item"][data-kind="message"]')
  // The question and the fake's reply that echoes it.
  await expect(message).toHaveCount(2)
  await expect(message.filter({ hasText: /^请解释快速排序的原理/ })).toHaveCount(1)

  // Filters: a model that did not write it hides it; its own model and today keep it.
  await palette.getByTestId('palette-filters-toggle').click()
  await page.getByTestId('palette-input').fill('quicksortzeta')
  await expect(message.first()).toContainText('Quicksortzeta')
  await palette.getByTestId('palette-filter-model').selectOption('gpt-4o-mini')
  await expect(message.first()).toContainText('Quicksortzeta')
  const today = new Date()
  const iso = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`
  await palette.getByTestId('palette-filter-from').fill(iso)
  await expect(message.first()).toContainText('Quicksortzeta')
  await palette.getByTestId('palette-filter-to').fill('2000-01-01')
  await expect(palette.getByTestId('palette-empty')).toHaveText('No results')
  await palette.getByTestId('palette-filter-to').fill(iso)
  await expect(message.first()).toContainText('Quicksortzeta')
  await snap(page, 'palette')

  // Keyboard only: arrows to the message, Enter opens its conversation scrolled to it.
  const items = palette.getByTestId('palette-item')
  await page.getByTestId('palette-input').focus()
  const index = await items.evaluateAll((els) => els.findIndex((e) => e.getAttribute('data-kind') === 'message'))
  for (let i = 0; i < index; i++) await page.keyboard.press('ArrowDown')
  await expect(items.nth(index)).toHaveAttribute('aria-selected', 'true')
  await page.keyboard.press('Enter')
  await expect(palette).toHaveCount(0)
  const focused = page.locator('[data-highlighted="true"]')
  await expect(focused).toContainText('Quicksortzeta')
  await expect(page.getByTestId('conversation-title')).toHaveText('Sorting talk')

  // Escape closes; Ctrl+K again opens a fresh palette.
  await page.keyboard.press('Control+k')
  await expect(page.getByTestId('palette-input')).toHaveValue('')
  await page.keyboard.press('Escape')
  await expect(palette).toHaveCount(0)
})
