import { expect, test, type Page } from '@playwright/test'
import { chatChunks, errorBody, startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../fixtures/fake-openai'
import { configureProvider, openApp, pickModel, snap } from './helpers'

// Issue 18, Chat Competition, against the real app in browser mode and a fake OpenAI-compatible
// server that answers per model: gpt-4o-mini quickly, gpt-4o slowly (the user stops it), gpt-4.1
// fails. The user then continues with one reply and later switches to another branch.
const KEY = 'sk-e2e-competition-0123456789'
const FAST = 'gpt-4o-mini'
const SLOW = 'gpt-4o'
const FAIL = 'gpt-4.1'
let fake: FakeOpenAI

test.describe.configure({ mode: 'serial' })

test.beforeAll(async () => {
  fake = await startFakeOpenAI()
  fake.setDefault('/chat/completions', (req: RecordedRequest) => {
    const body = req.body as { model: string; messages: { role: string; content: string }[] }
    const last = String(body.messages.at(-1)?.content ?? '')
    if (String(body.messages[0]?.content ?? '').startsWith('You write a title')) return { kind: 'sse', chunks: chatChunks(['Competition ', 'chat']) }
    if (body.model === FAIL) return { kind: 'json', status: 400, body: errorBody('This model refuses to compete today.', 'model_error') }
    if (last.includes('Make a page')) return { kind: 'sse', chunks: chatChunks(['Here it is. <artifact identifier="hello-page" type="text/html" title="Hello page">\n<h1>Hello</h1>\n</artifact>']) }
    // A stopped reply's Continue (chat.continue) asks again with this instruction as the last message.
    if (last.startsWith('Continue your previous answer')) return { kind: 'sse', delayMs: 30, chunks: chatChunks(['resumed ', 'where ', 'it ', 'stopped.']) }
    if (body.model === SLOW) return { kind: 'sse', delayMs: 80, chunks: chatChunks(Array.from({ length: 300 }, (_, i) => `slow${i} `)) }
    // The fast model answers in ~1.5 s, so it is still streaming when the slow one is stopped.
    const words = last.includes('next') ? ['Continuing ', 'from ', 'the ', 'chosen ', 'reply.'] : Array.from({ length: 30 }, (_, i) => `fast${i} `)
    return { kind: 'sse', delayMs: 50, chunks: chatChunks(words, { model: body.model, usage: { prompt_tokens: 9, completion_tokens: words.length, total_tokens: 9 + words.length } }) }
  })
})

test.afterAll(async () => fake.close())

async function newChatWithModel(page: Page) {
  await configureProvider(page, 'openai', fake.url, KEY)
  await page.getByTestId('nav-chat').click()
  await page.getByTestId('new-chat').click()
  await pickModel(page, 'openai', FAST)
  await expect(page.getByTestId('model-picker')).toContainText('mini')
}

async function chooseCompetitors(page: Page, models: string[]) {
  await page.getByTestId('competition-picker').click()
  const dialog = page.getByRole('dialog')
  for (const model of models) {
    await dialog.getByPlaceholder(/search/i).fill(model)
    await dialog.getByTestId(`compete-openai-${model}`).first().check()
  }
  await dialog.getByTestId('competition-done').click()
  await expect(page.getByTestId('competition-chip')).toHaveCount(models.length)
  // Chips name the provider as the rest of the app does.
  await expect(page.getByTestId('competition-chip').first()).toContainText('OpenAI')
}

async function send(page: Page, text: string) {
  await page.getByTestId('composer-input').fill(text)
  await page.getByTestId('composer-input').press('Enter')
}

const column = (page: Page, model: string) => page.locator(`[data-testid="competition-column"][data-model="${model}"]`)
const tab = (page: Page, model: string) => page.getByRole('tablist').locator(`[role="tab"][data-model="${model}"]`)
/** The columns on screen (at narrow widths the unselected tabs' panels are hidden). */
/** Replies drawn in the chat outside the competition's columns. */
const outsideColumns = (page: Page) => page.locator('[data-testid="message-list"] [data-testid="message-assistant"]:not([data-testid="competition-turn"] *)')
const shownColumns = (page: Page) => page.locator('[data-testid="competition-column"]:visible')

test('three models side by side: one fails, one is stopped, one is chosen; the next message continues from it; other branches stay switchable', async ({ page }) => {
  await newChatWithModel(page)
  await chooseCompetitors(page, [FAST, SLOW, FAIL])
  await expect(page.getByTestId('competition-note')).toContainText('3')
  await send(page, 'Which is best?')

  const turn = page.getByTestId('competition-turn')
  await expect(turn).toHaveAttribute('data-layout', 'columns')
  await expect(page.getByTestId('competition-column')).toHaveCount(3)
  // The failing model shows its error card in its own column; it offers no "Continue with this".
  await expect(column(page, FAIL).getByTestId('error-card')).toContainText('refuses to compete')
  await expect(column(page, FAIL).getByTestId('competition-regenerate')).toBeVisible()
  await expect(column(page, FAIL).getByTestId('competition-choose')).toHaveCount(0)
  // The slow one streams; the user stops it alone while the fast one is still streaming.
  await expect(column(page, SLOW)).toContainText('slow3')
  await expect(column(page, FAST).getByTestId('competition-stop')).toBeVisible()
  await column(page, SLOW).getByTestId('competition-stop').click()
  await expect(column(page, SLOW)).toHaveAttribute('data-status', 'interrupted')
  await expect(column(page, SLOW).getByTestId('interrupted')).toBeVisible()
  // The fast one was not stopped with it: it finishes in full, with its usage and cost.
  await expect(column(page, FAST)).toHaveAttribute('data-status', 'complete')
  await expect(column(page, FAST)).toContainText('fast29')
  await expect(column(page, FAST).getByTestId('message-stats').getByTitle('Output tokens')).toHaveText('30')
  // Continue the stopped column: the action is in that column, and so is its continuation (not
  // below the columns); the spent Continue goes.
  await expect(page.getByTestId('continue')).toHaveCount(1)
  await column(page, SLOW).getByTestId('continue').click()
  await expect(column(page, SLOW)).toContainText('resumed where it stopped.')
  await expect(column(page, SLOW)).toHaveAttribute('data-status', 'complete')
  // One reply, one text: the continuation goes on in the stopped reply's paragraph.
  await expect(column(page, SLOW).getByTestId('message-assistant')).toHaveCount(1)
  await expect(column(page, SLOW).locator('[data-parts="2"]')).toHaveCount(1)
  await expect(column(page, SLOW).locator('p').filter({ hasText: 'resumed where it stopped.' })).toContainText('slow3')
  await expect(page.getByTestId('continue')).toHaveCount(0)
  await expect(outsideColumns(page)).toHaveCount(0)
  await expect(column(page, FAST)).toContainText('fast29')
  await snap(page, 'competition-columns')

  // Continue with the fast reply: the columns give way to the ordinary chat, with its branches.
  await column(page, FAST).getByTestId('competition-choose').click()
  await expect(page.getByTestId('competition-turn')).toHaveCount(0)
  const chosen = page.getByTestId('message-assistant').last()
  await expect(chosen).toContainText('fast29')
  await chosen.hover()
  await expect(chosen.getByTestId('branch-switch')).toContainText('/3')

  // Clear the competition: the next message goes to one model, and continues from the chosen reply.
  await page.getByTestId('competition-picker').click()
  await page.getByRole('dialog').getByTestId('competition-clear').click()
  await page.getByRole('dialog').getByTestId('competition-done').click()
  fake.requests.length = 0
  await send(page, 'next please')
  await expect(page.getByTestId('message-assistant').last()).toContainText('Continuing from the chosen reply.')
  const request = fake.requestsTo('/chat/completions').map((r) => r.body as { model: string; messages: { role: string; content: string }[] }).find((b) => b.messages.at(-1)?.content === 'next please')!
  expect(request.model).toBe(FAST)
  const history = request.messages.map((m) => m.role)
  expect(history.slice(-3)).toEqual(['user', 'assistant', 'user'])
  expect(request.messages.at(-2)!.content).toContain('fast29')

  // Later: switch the competition's turn to another branch and back (siblings are in creation order,
  // which among concurrent replies is not fixed: go whichever way is open).
  const competing = page.getByTestId('message-assistant').nth(0)
  await competing.hover()
  const before = await competing.getByTestId('branch-switch').textContent()
  const previous = competing.getByRole('button', { name: /previous/i })
  const [away, back] = (await previous.isEnabled()) ? [/previous/i, /next/i] : [/next/i, /previous/i]
  await competing.getByRole('button', { name: away }).click()
  await expect(page.getByTestId('message-assistant').nth(0)).not.toContainText('fast29')
  await expect(page.getByText('next please')).toHaveCount(0)
  await page.getByTestId('message-assistant').nth(0).hover()
  await page.getByTestId('message-assistant').nth(0).getByRole('button', { name: back }).click()
  await expect(page.getByTestId('message-assistant').nth(0)).toContainText('fast29')
  await expect(page.getByText('next please')).toBeVisible()
  expect(before).toContain('/3')
})

test('a competition streaming in the core is followed again after a reload', async ({ page }) => {
  await newChatWithModel(page)
  await chooseCompetitors(page, [FAST, SLOW])
  await send(page, 'Race after reload')
  await expect(column(page, SLOW)).toContainText('slow2')
  const url = page.url()
  await page.reload()
  await openApp(page, new URL(url).hash)
  await expect(page.getByTestId('competition-column')).toHaveCount(2)
  // The slow reply keeps streaming into its column after the reload, and can still be stopped.
  await expect(column(page, SLOW)).toContainText('slow20')
  await column(page, SLOW).getByTestId('competition-stop').click()
  await expect(column(page, SLOW)).toHaveAttribute('data-status', 'interrupted')
  await expect(column(page, FAST)).toHaveAttribute('data-status', 'complete')
})

test('at 1024 px the columns become tabs; regenerate one column adds a version there', async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 800 })
  await newChatWithModel(page)
  await chooseCompetitors(page, [FAST, FAIL])
  await send(page, 'Narrow window')
  const turn = page.getByTestId('competition-turn')
  await expect(turn).toHaveAttribute('data-layout', 'tabs')
  await expect(page.getByTestId('competition-tab')).toHaveCount(2)
  await expect(shownColumns(page)).toHaveCount(1)
  // A WAI-ARIA tabs widget: each tab names its panel, only the selected tab is in the Tab order,
  // and the arrow keys (wrapping), Home and End move between tabs and show their panels.
  const tabs = page.getByRole('tablist').getByRole('tab')
  await expect(tabs).toHaveCount(2)
  // (Tabs are named as the app names models, "OpenAI GPT-4o mini"; found here by the model's id.)
  const fastTab = tab(page, FAST)
  const failTab = tab(page, FAIL)
  await fastTab.click()
  await expect(fastTab).toHaveAttribute('aria-selected', 'true')
  await expect(fastTab).toHaveAttribute('tabindex', '0')
  await expect(failTab).toHaveAttribute('tabindex', '-1')
  const fastPanel = page.locator(`#${await fastTab.getAttribute('aria-controls')}`)
  await expect(fastPanel).toHaveAttribute('role', 'tabpanel')
  await expect(fastPanel).toHaveAttribute('data-model', FAST)
  await expect(fastPanel).toBeVisible()
  await expect(fastPanel).toHaveAttribute('aria-labelledby', (await fastTab.getAttribute('id'))!)
  await fastTab.press('ArrowRight')
  await expect(failTab).toBeFocused()
  await expect(failTab).toHaveAttribute('aria-selected', 'true')
  await expect(failTab).toHaveAttribute('tabindex', '0')
  await expect(fastTab).toHaveAttribute('tabindex', '-1')
  await expect(page.locator(`#${await failTab.getAttribute('aria-controls')}`)).toBeVisible()
  await expect(fastPanel).toBeHidden()
  await expect(column(page, FAIL).getByTestId('error-card')).toBeVisible()
  // Right from the last tab wraps to the first, Left from the first to the last; Home and End.
  await page.keyboard.press('ArrowRight')
  await expect(fastTab).toBeFocused()
  await expect(fastPanel).toBeVisible()
  await page.keyboard.press('ArrowLeft')
  await expect(failTab).toBeFocused()
  await expect(column(page, FAIL)).toBeVisible()
  await page.keyboard.press('Home')
  await expect(fastTab).toBeFocused()
  await expect(fastTab).toHaveAttribute('aria-selected', 'true')
  await expect(column(page, FAST)).toBeVisible()
  await page.keyboard.press('End')
  await expect(failTab).toBeFocused()
  await expect(failTab).toHaveAttribute('aria-selected', 'true')
  await expect(column(page, FAIL).getByTestId('error-card')).toBeVisible()
  await expect(shownColumns(page)).toHaveCount(1)
  // The error card's retry asks the same model again, as a second version in its column.
  await column(page, FAIL).getByTestId('error-action').click()
  await expect(column(page, FAIL).getByTestId('competition-versions')).toContainText('2/2')
  await expect(column(page, FAIL).getByTestId('error-card')).toBeVisible()
  await tab(page, FAST).click()
  await expect(column(page, FAST)).toHaveAttribute('data-status', 'complete')
  await column(page, FAST).getByTestId('competition-regenerate').click()
  await expect(column(page, FAST).getByTestId('competition-versions')).toContainText('2/2')
  await expect(column(page, FAST)).toHaveAttribute('data-status', 'complete')
  await snap(page, 'competition-tabs')
  // Wider again: the same turn as columns.
  await page.setViewportSize({ width: 1280, height: 800 })
  await expect(turn).toHaveAttribute('data-layout', 'columns')
  await expect(shownColumns(page)).toHaveCount(2)
  await expect(page.getByRole('tablist')).toHaveCount(0)
})

test('at 1024 px a stopped column offers Continue in its own tab panel, and continues there', async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 800 })
  await newChatWithModel(page)
  await chooseCompetitors(page, [FAST, SLOW])
  await send(page, 'Stop one, then go on')
  await expect(page.getByTestId('competition-turn')).toHaveAttribute('data-layout', 'tabs')
  const slowTab = tab(page, SLOW)
  await slowTab.click()
  await expect(column(page, SLOW)).toBeVisible()
  await expect(column(page, SLOW)).toContainText('slow3')
  await column(page, SLOW).getByTestId('competition-stop').click()
  await expect(column(page, SLOW)).toHaveAttribute('data-status', 'interrupted')
  // The Continue is in the stopped model's panel; the other panel has none.
  await expect(column(page, SLOW).getByTestId('continue')).toBeVisible()
  await expect(page.getByTestId('continue')).toHaveCount(1)
  await column(page, SLOW).getByTestId('continue').click()
  await expect(column(page, SLOW)).toContainText('resumed where it stopped.')
  await expect(column(page, SLOW)).toHaveAttribute('data-status', 'complete')
  await expect(slowTab).toHaveAttribute('aria-selected', 'true')
  await expect(outsideColumns(page)).toHaveCount(0)
  await expect(page.getByTestId('continue')).toHaveCount(0)
  // The other tab still shows its own reply; back on the continued one, its continuation is there.
  await tab(page, FAST).click()
  await expect(column(page, FAST)).toContainText('fast29')
  await slowTab.click()
  await expect(column(page, SLOW)).toContainText('resumed where it stopped.')
  // Continuing with it: the chosen reply and its continuation are the chat's, as one reply of one text.
  await column(page, SLOW).getByTestId('competition-choose').click()
  await expect(page.getByTestId('competition-turn')).toHaveCount(0)
  await expect(page.getByTestId('message-assistant')).toHaveCount(1)
  await expect(page.locator('[data-testid="message-assistant"][data-parts="2"] p').filter({ hasText: 'resumed where it stopped.' })).toContainText('slow3')
})

test('the artifact panel beside the columns turns them into tabs at any window width, and closing it brings them back', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 })
  await newChatWithModel(page)
  await chooseCompetitors(page, [FAST, SLOW, FAIL])
  await send(page, 'Make a page')
  const turn = page.getByTestId('competition-turn')
  // The replies' artifact opens the panel (by itself, or from its card if the reply came whole
  // before the page saw it stream), which takes half of the width the columns had.
  await expect(column(page, FAST)).toHaveAttribute('data-status', 'complete')
  // Another column's artifact may open the panel at any moment (it then shows that column's tab,
  // hiding this card), so ask again until the panel is there rather than waiting on the card.
  await expect(async () => {
    if (await page.getByTestId('artifact-panel').isVisible()) return
    const card = column(page, FAST).getByTestId('artifact-card')
    if (await card.isVisible()) await card.click({ timeout: 2_000 })
    await expect(page.getByTestId('artifact-panel')).toBeVisible({ timeout: 2_000 })
  }).toPass({ timeout: 20_000 })
  await expect(turn).toHaveAttribute('data-layout', 'tabs')
  await expect(shownColumns(page)).toHaveCount(1)
  // The one column shown takes the whole width left (three would each get a third).
  const box = await shownColumns(page).first().boundingBox()
  const whole = await turn.boundingBox()
  expect(box!.width).toBeGreaterThan(whole!.width - 40)
  await page.getByTestId('artifact-close').click()
  await expect(page.getByTestId('artifact-panel')).toHaveCount(0)
  await expect(turn).toHaveAttribute('data-layout', 'columns')
  await expect(shownColumns(page)).toHaveCount(3)
  // A column's artifact card opens the panel even when its reply is not the branch shown.
  await column(page, FAST).getByTestId('artifact-card').click()
  await expect(page.getByTestId('artifact-panel')).toBeVisible()
  await expect(turn).toHaveAttribute('data-layout', 'tabs')
})

test('at 1920×1080 three columns take the chat area’s width; at 1280 they still fit as columns; they name the provider as the app does', async ({ page }) => {
  await page.setViewportSize({ width: 1920, height: 1080 })
  await newChatWithModel(page)
  await chooseCompetitors(page, [FAST, SLOW, FAIL])
  await send(page, 'Which is widest?')
  const turn = page.getByTestId('competition-turn')
  await expect(turn).toHaveAttribute('data-layout', 'columns')
  await expect(shownColumns(page)).toHaveCount(3)
  await expect(column(page, FAIL).getByTestId('error-card')).toBeVisible()
  // Each column's header names the provider by its name, as the header chip does.
  for (const model of [FAST, SLOW, FAIL]) await expect(column(page, model).locator('header')).toContainText('OpenAI')
  await expect(page.getByTestId('competition-column').locator('header', { hasText: /\bopenai\b/ })).toHaveCount(0)
  const widths = async () => Promise.all((await shownColumns(page).all()).map(async (c) => (await c.boundingBox())!.width))
  const list = (await page.getByTestId('message-list').boundingBox())!
  const total = (await widths()).reduce((a, b) => a + b, 0)
  // Not the single reply's reading width (~660 px for three): most of the chat area.
  expect(total).toBeGreaterThan(1200)
  expect(total).toBeGreaterThan(list.width * 0.8)
  // A single reply keeps its reading width beside it.
  expect((await page.getByTestId('message-user').last().boundingBox())!.width).toBeLessThanOrEqual(900)
  await column(page, SLOW).getByTestId('competition-stop').click()
  await snap(page, 'competition-1920')
  // At 1280 the three columns still sit side by side, within the chat area.
  await page.setViewportSize({ width: 1280, height: 800 })
  await expect(turn).toHaveAttribute('data-layout', 'columns')
  await expect(shownColumns(page)).toHaveCount(3)
  const narrow = (await page.getByTestId('message-list').boundingBox())!
  for (const c of await shownColumns(page).all()) {
    const box = (await c.boundingBox())!
    expect(box.width).toBeGreaterThan(240)
    expect(box.x + box.width).toBeLessThanOrEqual(narrow.x + narrow.width + 1)
  }
})
