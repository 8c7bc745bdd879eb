import { expect, type Page } from '@playwright/test'
import { mkdirSync } from 'node:fs'

export const TOKEN = 'e2e-token-0123456789abcdef'
export const PASSWORD = 'e2e access password'
export const PORT = Number(process.env['E2E_PORT'] ?? 5391)
export const LOCKED_BASE = `http://127.0.0.1:${PORT + 1}`

/** Opens the app with the token, waits until the core says it is ready. */
export async function openApp(page: Page, hash = '#/chat') {
  await page.goto(`/?token=${TOKEN}${hash}`)
  await expect(page.getByRole('navigation')).toBeVisible({ timeout: 30_000 })
}

/** Screenshots are kept as test artifacts in test-results/screenshots/. */
export async function snap(page: Page, name: string) {
  mkdirSync('test-results/screenshots', { recursive: true })
  await page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true })
}
