import { expect, test } from '@playwright/test'
import { LOCKED_BASE, PASSWORD, TOKEN, openApp, snap } from './helpers'

test('without the token the server gives nothing', async ({ page }) => {
  const response = await page.goto('/')
  expect(response?.status()).toBe(403)
  await expect(page.locator('body')).not.toContainText('Switchboard')
})

test('shows start-up, then every route, in light and dark', async ({ page }) => {
  const phases: string[] = []
  await page.exposeFunction('recordPhase', (p: string) => phases.push(p))
  await page.addInitScript(() => {
    new MutationObserver(() => {
      const el = document.querySelector('[data-testid="startup"]')
      const phase = el?.getAttribute('data-phase')
      if (phase) (window as unknown as { recordPhase(p: string): void }).recordPhase(phase)
    }).observe(document, { subtree: true, childList: true, attributes: true })
  })
  await openApp(page)
  for (const route of ['chat', 'images', 'local-models', 'knowledge', 'usage', 'settings'] as const) {
    await page.getByTestId(`nav-${route}`).click()
    await expect(page.getByTestId(`page-${route}`)).toBeVisible()
    await expect(page.getByTestId(`nav-${route}`)).toHaveAttribute('aria-current', 'page')
    await snap(page, `route-${route}-light`)
  }
  // Whatever start-up states were painted came in the spec's order.
  const order = ['idle', 'initializing', 'loadingDependencies', 'migrating', 'finished']
  const seen = phases.filter((p, i) => p !== phases[i - 1]).map((p) => order.indexOf(p))
  expect(seen).toEqual([...seen].sort((a, b) => a - b))

  await page.getByTestId('theme-dark').click()
  await expect(page.locator('html')).toHaveClass(/dark/)
  await expect(page.locator('body')).toHaveCSS('background-color', 'oklch(0.141 0.005 285.823)')
  for (const route of ['chat', 'images', 'local-models', 'knowledge', 'usage', 'settings'] as const) {
    await page.getByTestId(`nav-${route}`).click()
    await snap(page, `route-${route}-dark`)
  }
  await page.reload()
  await expect(page.locator('html')).toHaveClass(/dark/) // the choice is remembered
  await page.getByTestId('nav-settings').click()
  await page.getByTestId('theme-light').click()
  await expect(page.locator('html')).not.toHaveClass(/dark/)
})

test('switches language to Chinese and back', async ({ page }) => {
  await openApp(page, '#/settings')
  await page.getByTestId('language-select').selectOption('zh-CN')
  await expect(page.getByTestId('nav-chat')).toHaveText('对话')
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN')
  await snap(page, 'settings-zh-CN')
  await page.getByTestId('language-select').selectOption('en')
  await expect(page.getByTestId('nav-chat')).toHaveText('Chat')
})

test('keyboard: Ctrl+2 opens Images, Ctrl+6 Settings (the sidebar order)', async ({ page }) => {
  await openApp(page)
  await page.keyboard.press('Control+2')
  await expect(page.getByTestId('page-images')).toBeVisible()
  await page.keyboard.press('Control+6')
  await expect(page.getByTestId('page-settings')).toBeVisible()
})

test('an unknown route shows the not-found page with a way home', async ({ page }) => {
  await openApp(page, '#/no/such/page')
  await expect(page.getByTestId('not-found')).toBeVisible()
  await snap(page, 'not-found')
  await page.getByRole('link', { name: 'Back home' }).click()
  await expect(page.getByTestId('page-chat')).toBeVisible()
})

test('with an access password the page asks once; a wrong or empty one is refused', async ({ page }) => {
  await page.goto(`${LOCKED_BASE}/?token=${TOKEN}`)
  await expect(page.getByTestId('unlock-password')).toBeVisible({ timeout: 30_000 })
  await page.getByRole('button', { name: 'Unlock' }).click()
  await expect(page.getByTestId('unlock-error')).toContainText('password is wrong or empty')
  await page.getByTestId('unlock-password').fill('not the password')
  await page.getByRole('button', { name: 'Unlock' }).click()
  await expect(page.getByTestId('unlock-error')).toContainText('password is wrong or empty')
  await snap(page, 'unlock-wrong-password')
  await page.getByTestId('unlock-password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Unlock' }).click()
  await expect(page.getByRole('navigation')).toBeVisible()
  await page.reload()
  await expect(page.getByRole('navigation')).toBeVisible() // asked once per session
  await expect(page.getByTestId('unlock-password')).toHaveCount(0)
})
