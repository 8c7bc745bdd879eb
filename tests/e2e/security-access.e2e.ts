import { expect, test } from '@playwright/test'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import { LOCKED_BASE, PASSWORD, TOKEN, openApp } from './helpers'

// Issue 20, browser mode: the token leaves the address bar and never reaches another local
// server; the unlock dialog shows how long to wait after too many wrong passwords.

test('the token leaves the address bar and history, and routes still work', async ({ page }) => {
  await openApp(page, '#/settings')
  expect(page.url()).not.toContain(TOKEN)
  expect(page.url()).toMatch(/\/[A-Za-z0-9_-]{24}\/#\/settings$/)
  expect(await page.evaluate(() => location.href)).not.toContain('token')
  // about:blank and the app: the token address was a redirect, not an entry of its own.
  expect(await page.evaluate(() => history.length)).toBe(2)
  await page.reload()
  await expect(page.getByTestId('page-settings')).toBeVisible({ timeout: 30_000 })
})

test('another server on 127.0.0.1 never receives the token cookie', async ({ page }) => {
  const seen: IncomingHttpHeaders[] = []
  const other = createServer((req, res) => {
    seen.push(req.headers)
    res.writeHead(200, { 'Content-Type': 'text/html' }).end('<p>another local app</p>')
  })
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r))
  try {
    await openApp(page)
    const port = (other.address() as { port: number }).port
    await page.goto(`http://127.0.0.1:${port}/`)
    await page.goto(`http://127.0.0.1:${port}/assets/x.js`)
    expect(seen.length).toBeGreaterThan(0)
    for (const headers of seen) expect(headers.cookie ?? '').not.toContain(TOKEN)
  } finally {
    // Chromium may hold a preconnected socket with no request on it yet; close() alone waits for it.
    other.closeAllConnections()
    await new Promise<void>((r) => other.close(() => r()))
  }
})

test('an old or missing token gets a page that says how to get a fresh address', async ({ page }) => {
  const response = await page.goto('/?token=an-old-token-from-yesterday-000')
  expect(response?.status()).toBe(403)
  await expect(page.locator('body')).toContainText('Open http://127.0.0.1:…/?token=…')
  await expect(page.locator('body')).toContainText('npm run serve')
})

test('after five wrong passwords the unlock dialog shows the wait, then the right one unlocks', async ({ page }) => {
  await page.goto(`${LOCKED_BASE}/`)
  const input = page.getByTestId('unlock-password')
  await expect(input).toBeVisible({ timeout: 30_000 })
  for (let i = 0; i < 5; i++) {
    await input.fill(`wrong password ${i}`)
    await page.getByRole('button', { name: 'Unlock' }).click()
    await expect(page.getByTestId('unlock-error')).toBeVisible()
    if (i < 4) await expect(page.getByRole('button', { name: 'Unlock' })).toBeEnabled({ timeout: 10_000 })
  }
  // The fifth wrong answer says how long the server will not look at another password.
  await expect(page.getByTestId('unlock-wait')).toContainText(/Try again in \d+ s/)
  await expect(page.getByRole('button', { name: 'Unlock' })).toBeDisabled()
  await expect(page.getByTestId('unlock-wait')).toHaveCount(0, { timeout: 10_000 })
  await input.fill(PASSWORD)
  await page.getByRole('button', { name: 'Unlock' }).click()
  await expect(page.getByRole('navigation')).toBeVisible()
  // Signing out ends the session: the page asks again.
  await page.getByTestId('nav-settings').click()
  await page.getByTestId('sign-out').click()
  await expect(page.getByTestId('unlock-password')).toBeVisible({ timeout: 30_000 })
})
