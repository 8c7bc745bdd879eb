import { expect, type Locator, type Page } from '@playwright/test'
import { mkdirSync } from 'node:fs'

export const TOKEN = 'e2e-token-0123456789abcdef'
export const PASSWORD = 'e2e access password'
export const PORT = Number(process.env['E2E_PORT'] ?? 5391)
export const LOCKED_BASE = `http://127.0.0.1:${PORT + 1}`

/** Opens the app with the token, waits until the core says it is ready. */
export async function openApp(page: Page, hash = '#/chat') {
  await page.goto(`/?token=${TOKEN}${hash}`)
  // On a narrow screen the navigation is in a drawer behind the top bar's menu button.
  await expect(page.getByRole('navigation').or(page.getByTestId('mobile-bar'))).toBeVisible({ timeout: 30_000 })
}

/** Screenshots are kept as test artifacts in test-results/screenshots/. */
export async function snap(page: Page, name: string) {
  mkdirSync('test-results/screenshots', { recursive: true })
  await page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true })
}

/** Settings → Providers: finds a provider by search and opens its panel. */
export async function openProvider(page: Page, providerId: string): Promise<Locator> {
  await openApp(page, '#/settings')
  await page.getByTestId('provider-search').fill(providerId)
  await page.getByTestId(`provider-${providerId}`).click()
  return page.getByTestId(`provider-detail-${providerId}`)
}

/** Types a provider's address in its open panel and saves it with Enter ('' puts the default back). */
export async function setProviderAddress(detail: Locator, baseUrl: string) {
  await detail.getByTestId('provider-base-url').fill(baseUrl)
  await detail.getByTestId('provider-base-url').press('Enter')
}

/**
 * Settings → Providers: point a provider at a fake server and save its key, the way a user
 * does. Checks that the key shows only as its last four characters and never comes back.
 */
export async function configureProvider(page: Page, providerId: string, baseUrl: string, key: string) {
  const detail = await openProvider(page, providerId)
  await setProviderAddress(detail, baseUrl)
  await detail.getByTestId('provider-key-input').fill(key)
  await detail.getByTestId('provider-key-save').click()
  await expect(detail.getByTestId('provider-key-status')).toContainText(key.slice(-4))
  expect(await page.content()).not.toContain(key)
}

/**
 * Types `text` into the composer and presses Enter until the fake server has seen the request
 * (`answered()` counts the chat requests it answered), then waits for the reply to settle. An
 * Enter pressed while the previous reply is being saved is not a send; it is pressed again then.
 */
export async function sendAndWait(page: Page, text: string, answered: () => number) {
  const want = answered() + 1
  await expect(async () => {
    if (answered() < want) {
      await page.getByTestId('composer-input').fill(text)
      await page.getByTestId('composer-input').press('Enter')
    }
    await expect.poll(answered, { timeout: 2_000 }).toBe(want)
  }).toPass({ timeout: 20_000 })
  await expect(page.getByTestId('composer-input')).toHaveValue('')
  await expect(page.locator('[data-testid="message-assistant"][aria-busy="true"]')).toHaveCount(0)
}

/**
 * Picks a model in a model picker the way a user does: open it, type the model's id, choose it.
 * `within` is where the picker's button is (a Settings row, say); the dialog itself is portaled.
 */
export async function pickModel(page: Page, providerId: string, modelId: string, within: Page | Locator = page) {
  await within.getByTestId('model-picker').click()
  await page.getByTestId('model-search').fill(modelId)
  await page.getByTestId(`pick-${providerId}-${modelId}`).first().click()
}

/**
 * Holds the core's answers to the bridge calls `matches` picks for `ms` before the page gets
 * them (the calls themselves go on at once). Returns the ids of the calls held so far.
 */
export async function holdAnswers(page: Page, matches: (call: { proc: string; input?: Record<string, unknown> }) => boolean, ms: number): Promise<ReadonlySet<number>> {
  const held = new Set<number>()
  await page.routeWebSocket(/\/bridge/, (ws) => {
    const server = ws.connectToServer()
    ws.onMessage((data) => {
      const message = JSON.parse(String(data)) as { t: string; id: number; proc?: string; input?: Record<string, unknown> }
      if (message.t === 'call' && message.proc && matches({ proc: message.proc, input: message.input })) held.add(message.id)
      server.send(data)
    })
    server.onMessage((data) => {
      const message = JSON.parse(String(data)) as { t: string; id: number }
      if (message.t === 'result' && held.has(message.id)) setTimeout(() => ws.send(data), ms)
      else ws.send(data)
    })
  })
  return held
}

