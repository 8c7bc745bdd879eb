import { expect, test, type Page } from '@playwright/test'
import { mkdirSync } from 'node:fs'
import { openApp } from './helpers'

// Issue 17: every page in both themes and both languages, written by the e2e run to
// test-results/screenshots/pages/ (gitignored) for a person to look through. The walk also
// fails if a page does not render (each waits for its own test id).
const OUT = 'test-results/screenshots/pages'
const PAGES = [
  { name: 'chat', hash: '#/chat', testId: 'page-chat' },
  { name: 'images', hash: '#/images', testId: 'page-images' },
  { name: 'local-models', hash: '#/local-models', testId: 'page-local-models' },
  { name: 'knowledge', hash: '#/knowledge', testId: 'page-knowledge' },
  { name: 'usage', hash: '#/usage', testId: 'page-usage' },
  { name: 'settings', hash: '#/settings', testId: 'page-settings' }
] as const

async function shoot(page: Page, name: string) {
  // Let fonts and images settle so the picture shows what a user sees.
  await page.evaluate(() => document.fonts.ready)
  await page.screenshot({ path: `${OUT}/${name}.png` })
}

for (const language of ['en', 'zh-CN'] as const) {
  for (const theme of ['light', 'dark'] as const) {
    test(`screenshots of every page: ${language}, ${theme}`, async ({ page }) => {
      test.setTimeout(120_000)
      mkdirSync(OUT, { recursive: true })
      await page.setViewportSize({ width: 1440, height: 900 })
      await page.addInitScript(
        ([lang, th]) => {
          localStorage.setItem('switchboard.language', lang)
          localStorage.setItem('switchboard.theme', th)
        },
        [language, theme] as const
      )
      await openApp(page, '#/chat')
      await expect(page.locator('html')).toHaveAttribute('data-theme', theme)
      await expect(page.locator('html')).toHaveAttribute('lang', language === 'en' ? 'en' : /zh/)
      for (const p of PAGES) {
        await page.evaluate((hash) => (location.hash = hash), p.hash)
        await expect(page.getByTestId(p.testId)).toBeVisible({ timeout: 30_000 })
        await shoot(page, `${language}-${theme}-${p.name}`)
      }
      // Settings, one picture per section (the ids the section index scrolls to).
      const sections = await page.locator('[data-testid="page-settings"] [id^="settings-"]').evaluateAll((els) => els.map((e) => e.id))
      expect(sections.length).toBeGreaterThanOrEqual(6)
      for (const id of sections) {
        await page.evaluate((el) => document.getElementById(el)?.scrollIntoView({ block: 'start' }), id)
        await shoot(page, `${language}-${theme}-${id}`)
      }
      // The shortcuts sheet, over the page.
      await page.keyboard.press('Control+/')
      await expect(page.getByTestId('shortcuts-sheet')).toBeVisible()
      await shoot(page, `${language}-${theme}-shortcuts`)
    })
  }
}
