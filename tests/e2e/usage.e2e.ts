import { expect, test, type Page } from '@playwright/test'
import { chatChunks, startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../fixtures/fake-openai'
import { configureProvider, holdAnswers, openApp, pickModel, sendAndWait, snap } from './helpers'

// Issue 16: the usage table's figures are the per-message costs added up. This spec is the only
// one whose gpt-4o (not -mini) replies have a priced cost (the competition spec stops its gpt-4o
// column before any usage), so that model's priced row holds exactly its replies.
const KEY = 'sk-e2e-usage-key-0123456789'
let fake: FakeOpenAI
/** Chat requests the fake answered (titles aside): a send counts when the server saw it, not when the list shows it. */
let asked = 0

test.describe.configure({ mode: 'serial' })

test.beforeAll(async () => {
  fake = await startFakeOpenAI()
  fake.setDefault('/chat/completions', (req: RecordedRequest) => {
    const body = req.body as { messages: { role: string; content: string }[] }
    if (body.messages[0]?.content.startsWith('You write a title')) return { kind: 'sse', chunks: chatChunks(['Usage ', 'talk']) }
    asked++
    // Tokens grow with the question, so the three replies cost different amounts.
    const prompt = 10 + String(body.messages.at(-1)?.content ?? '').length
    return { kind: 'sse', chunks: chatChunks(['Counted reply.'], { usage: { prompt_tokens: prompt, completion_tokens: 25, total_tokens: prompt + 25 } }) }
  })
})

test.afterAll(async () => fake.close())

const send = (page: Page, text: string) => sendAndWait(page, text, () => asked)

const parseCost = (text: string) => Number(text.replace(/[^0-9.]/g, ''))

test('the usage table totals equal the sum of the message costs', async ({ page }) => {
  await configureProvider(page, 'openai', fake.url, KEY)
  await openApp(page, '#/chat')
  await page.getByTestId('new-chat').click()
  await pickModel(page, 'openai', 'gpt-4o')
  await expect(page.getByTestId('model-picker')).toContainText('GPT-4o')
  await expect(page.getByTestId('model-picker')).not.toContainText('mini')
  await send(page, 'first')
  await send(page, 'second, longer question')
  await send(page, 'third')
  // The cost line follows the final usage event, a moment after the reply is complete.
  await expect(page.getByTestId('message-cost')).toHaveCount(3)
  const costs = await page.getByTestId('message-cost').allInnerTexts()
  const sum = costs.map(parseCost).reduce((a, b) => a + b, 0)
  expect(sum).toBeGreaterThan(0)
  // The composer shows this conversation's running cost: the same sum (each shown cost is rounded).
  await expect
    .poll(async () => Math.abs(parseCost(await page.getByTestId('conversation-cost').innerText()) - sum))
    .toBeLessThanOrEqual(3 * 5e-7 + 1e-9)

  // Usage is a page of its own in the navigation.
  await openApp(page, '#/chat')
  await page.getByTestId('nav-usage').click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Usage and cost')
  const usage = page.getByTestId('usage-section')
  await usage.getByTestId('usage-group').selectOption('model')
  // (Its rows per currency say which they are: "gpt-4o · USD", "gpt-4o · not priced".)
  const row = usage.getByTestId('usage-row').filter({ has: page.locator('td', { hasText: /^gpt-4o( · .+)?$/ }) })
  // One row per currency: the title call has no usage, so it has no priced cost.
  await expect(row.first()).toBeVisible()
  const modelCosts = (await row.locator('td:nth-child(4)').allInnerTexts()).map(parseCost)
  expect(modelCosts.reduce((a, b) => a + b, 0)).toBeCloseTo(sum, 6)
  // The footer adds up every row of the table.
  const rowCosts = (await usage.getByTestId('usage-row').locator('td:nth-child(4)').allInnerTexts()).map(parseCost)
  // Each row is shown rounded (6 decimals under 0.01, 4 above), so the shown rows may differ from
  // the exact total by up to half a unit of the last digit each, and so may the total itself (the
  // images the images spec made are in the usage too: a total above a cent has 4 decimals).
  const shownRounding = (rows: number[]) => rows.reduce((n, r) => n + (r < 0.01 ? 5e-7 : 5e-5), 0) + (rows.reduce((a, b) => a + b, 0) < 0.01 ? 5e-7 : 5e-5) + 1e-9
  expect(Math.abs(parseCost(await usage.getByTestId('usage-total-cost').first().innerText()) - rowCosts.reduce((a, b) => a + b, 0))).toBeLessThanOrEqual(shownRounding(rowCosts))
  // gpt-4o is priced in USD: its USD column is the same figure.
  const modelUsd = (await row.locator('td:nth-child(5)').allInnerTexts()).map(parseCost)
  expect(modelUsd.reduce((a, b) => a + b, 0)).toBeCloseTo(sum, 6)
  // The grand total in USD adds up the USD column; the chart (chart.js, loaded lazily) is drawn.
  const usdCosts = (await usage.getByTestId('usage-row').locator('td:nth-child(5)').allInnerTexts()).map(parseCost)
  // With USD the only currency, "Total (USD)" is the total in USD: no second "Total in USD" row repeats it.
  await expect(usage.getByTestId('usage-total-usd')).toHaveCount(0)
  const usdTotal = await usage.getByTestId('usage-total-USD').locator('td:nth-child(5)').innerText()
  expect(Math.abs(parseCost(usdTotal) - usdCosts.reduce((a, b) => a + b, 0))).toBeLessThanOrEqual(shownRounding(usdCosts))
  await expect(usage.getByTestId('usage-chart').locator('canvas')).toBeVisible()
  const download = page.waitForEvent('download')
  await usage.getByTestId('usage-csv').click()
  const csv = await download
  expect(csv.suggestedFilename()).toMatch(/^switchboard-usage-model-.*\.csv$/)
  const { readFileSync } = await import('node:fs')
  const lines = readFileSync((await csv.path())!, 'utf8').trim().split('\r\n')
  expect(lines[0]).toBe('model,calls,tokens,cost,currency,cost_usd')
  // One line per model and currency (calls without a priced cost have none): they add up to the sum.
  const csvRows = lines.filter((l) => l.startsWith('gpt-4o,')).map((l) => l.split(','))
  expect(csvRows.length).toBeGreaterThan(0)
  expect(csvRows.reduce((a, r) => a + Number(r[3]), 0)).toBeCloseTo(sum, 6)
  await snap(page, 'usage')

  // Per day (the user's calendar day): today's row holds the three replies.
  await usage.getByTestId('usage-group').selectOption('day')
  await expect(usage.getByTestId('usage-row').first()).toBeVisible()
  // A day with priced and unpriced calls has two rows, and they say which is which.
  const dayLabels = await usage.getByTestId('usage-row').locator('td:first-child').allInnerTexts()
  expect(new Set(dayLabels).size).toBe(dayLabels.length)
  // Per provider: named as the rest of the app names them ("OpenAI"), never by their ids.
  await usage.getByTestId('usage-group').selectOption('provider')
  const providerLabels = usage.getByTestId('usage-row').locator('td:first-child')
  await expect(providerLabels.filter({ hasText: /^OpenAI( · .+)?$/ }).first()).toBeVisible()
  expect(await providerLabels.allInnerTexts()).not.toContain('openai')
  // Per kind of call: the replies are chat, named in words; the images the images spec made are a kind of their own.
  await usage.getByTestId('usage-group').selectOption('kind')
  const kindLabels = usage.getByTestId('usage-row').locator('td:first-child')
  await expect(kindLabels.filter({ hasText: /^Chat( · .+)?$/ }).first()).toBeVisible()
  expect(await kindLabels.allInnerTexts()).not.toContain('chat')
  // Per agent: the agent's row holds at least these replies, and its settings show the same spend.
  await usage.getByTestId('usage-group').selectOption('agent')
  await expect(usage.getByTestId('usage-row').first()).toBeVisible()
  const agentRows = usage.getByTestId('usage-row')
  const agentCost = Math.max(...(await agentRows.locator('td:nth-child(5)').allInnerTexts()).map(parseCost))
  expect(agentCost).toBeGreaterThanOrEqual(sum - 1e-9)
  // Settings → Data lists the backups (a fresh data folder may have none yet).
  await page.getByTestId('nav-settings').click()
  await expect(page.getByTestId('backups')).toBeVisible()
  await expect(page.getByTestId('backup-item').or(page.getByTestId('backups-empty')).first()).toBeVisible()
})

test('while another grouping is on its way, the table and the CSV never show the last one’s rows under its name', async ({ page }) => {
  // The answer to "by provider" is held for a while: until it arrives, the rows of "by model" must
  // not be shown (or exported) as providers.
  const held = await holdAnswers(page, (call) => call.proc === 'data.usage.summary' && call.input?.['group'] === 'provider', 2_500)
  await openApp(page, '#/usage')
  const usage = page.getByTestId('usage-section')
  await usage.getByTestId('usage-group').selectOption('model')
  const firstCells = usage.getByTestId('usage-row').locator('td:first-child')
  await expect(firstCells.filter({ hasText: /^gpt-4o( · .+)?$/ }).first()).toBeVisible()
  await usage.getByTestId('usage-group').selectOption('provider')
  // The answer is not there yet: no model's row is shown, and there is nothing to export.
  await expect.poll(() => held.size).toBe(1)
  expect(await firstCells.allInnerTexts()).not.toContainEqual(expect.stringMatching(/^gpt-4o/))
  await expect(usage.getByTestId('usage-csv')).toBeDisabled()
  // Then the providers come, and the CSV has them.
  await expect(firstCells.filter({ hasText: /^OpenAI( · .+)?$/ }).first()).toBeVisible()
  const download = page.waitForEvent('download')
  await usage.getByTestId('usage-csv').click()
  const { readFileSync } = await import('node:fs')
  const lines = readFileSync((await (await download).path())!, 'utf8').trim().split('\r\n')
  expect(lines[0]).toMatch(/^provider,/)
  expect(lines.some((l) => l.startsWith('openai,'))).toBe(true)
  expect(lines.some((l) => l.startsWith('gpt-4o,'))).toBe(false)
})
