import { expect, test, type Browser, type Locator, type Page } from '@playwright/test'
import { startFakeOpenAI, type FakeOpenAI } from '../fixtures/fake-openai'
import { configureProvider, openApp, pickModel, snap } from './helpers'

// Browser mode reached from a phone or a tablet (touch emulation): one column, the sidebars as
// drawers opened by a button and closed by Esc, the backdrop or a choice; nothing scrolls
// sideways; the message actions are on screen without hovering.
let fake: FakeOpenAI

test.describe.configure({ mode: 'serial' })

test.beforeAll(async () => {
  fake = await startFakeOpenAI()
})
test.afterAll(async () => fake.close())

const fitsSideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth && document.body.scrollWidth <= window.innerWidth)

/** Seen without hovering: no ancestor is transparent. */
const opaque = (l: Locator) =>
  l.evaluate((el) => {
    for (let node: Element | null = el; node; node = node.parentElement) if (getComputedStyle(node).opacity === '0') return false
    return true
  })

async function touchPage(browser: Browser, width: number, height: number) {
  const context = await browser.newContext({
    baseURL: test.info().project.use.baseURL,
    viewport: { width, height },
    hasTouch: true,
    isMobile: true
  })
  return { context, page: await context.newPage() }
}

test('a first conversation made on a wide screen', async ({ page }) => {
  await configureProvider(page, 'openai', fake.url, 'sk-mobile-test-0001')
  await page.getByTestId('nav-chat').click()
  await page.getByTestId('new-chat').click()
  await pickModel(page, 'openai', 'gpt-4o-mini')
  await page.getByTestId('composer-input').fill('started on the desk')
  await page.getByTestId('composer-input').press('Enter')
  await expect(page.getByTestId('message-assistant').last()).toHaveAttribute('data-status', 'complete')
})

for (const [width, height] of [
  [390, 844],
  [768, 1024]
] as const) {
  test(`at ${width}×${height} with touch: the chat is on screen, a conversation opens from the drawer, a message is sent, Copy and Regenerate are reachable`, async ({ browser }) => {
    const { context, page } = await touchPage(browser, width, height)
    try {
      await openApp(page, '#/chat')
      // One column: the chat fills the width; the sidebars are not beside it.
      const input = page.getByTestId('composer-input')
      await expect(input).toBeInViewport({ ratio: 1 })
      await expect(page.getByTestId('send')).toBeInViewport({ ratio: 1 })
      await expect(page.getByTestId('conversation-list')).toBeHidden()
      await expect(page.getByTestId('nav-settings')).toBeHidden()
      expect(await fitsSideways(page)).toBe(true)

      // The navigation drawer: a button opens it, Esc closes it.
      await page.getByTestId('open-nav-drawer').tap()
      await expect(page.getByTestId('nav-settings')).toBeInViewport()
      await page.keyboard.press('Escape')
      await expect(page.getByTestId('nav-settings')).toBeHidden()

      // The conversations drawer: the backdrop closes it; choosing a conversation opens it and closes the drawer.
      await page.getByTestId('open-conversations-drawer').tap()
      await expect(page.getByTestId('conversation-list')).toBeInViewport()
      await page.getByTestId('drawer-backdrop').click({ position: { x: width - 10, y: height / 2 } })
      await expect(page.getByTestId('conversation-list')).toBeHidden()
      await page.getByTestId('open-conversations-drawer').tap()
      await page.getByTestId('conversation-item').filter({ hasText: /started on the desk|Hello/ }).first().tap()
      await expect(page.getByTestId('conversation-list')).toBeHidden()
      await expect(page.getByTestId('message-user').first()).toContainText('started on the desk')
      expect(await fitsSideways(page)).toBe(true)

      // Send from the phone.
      await input.tap()
      await input.fill(`from a ${width} px screen`)
      await page.getByTestId('send').tap()
      const reply = page.getByTestId('message-assistant').last()
      await expect(reply).toHaveAttribute('data-status', 'complete')
      await expect(page.getByTestId('message-user').last()).toContainText(`from a ${width} px screen`)
      expect(await fitsSideways(page)).toBe(true)

      // Copy and Regenerate are on screen without hovering, and work by tapping.
      const copy = reply.getByTestId('op-copy')
      const regenerate = reply.getByTestId('op-regenerate')
      await reply.scrollIntoViewIfNeeded()
      expect(await opaque(copy)).toBe(true)
      expect(await opaque(regenerate)).toBe(true)
      await expect(copy).toBeInViewport({ ratio: 1 })
      await expect(regenerate).toBeInViewport({ ratio: 1 })
      // Every action lies whole inside the screen (they wrap rather than run off its edge).
      for (const op of await reply.locator('button[data-testid^="op-"]').all()) {
        const b = (await op.boundingBox())!
        expect(b.x + b.width, await op.innerText()).toBeLessThanOrEqual(width)
      }
      // The header's controls stay inside the screen too.
      for (const control of await page.getByTestId('page-chat').locator('header button').all()) {
        const b = (await control.boundingBox())!
        expect(b.x + b.width).toBeLessThanOrEqual(width)
      }
      const before = await page.getByTestId('message-assistant').count()
      await regenerate.tap()
      await expect(page.getByTestId('branch-switch').last()).toBeVisible()
      await expect(page.getByTestId('message-assistant')).toHaveCount(before)
      await expect(page.getByTestId('message-assistant').last()).toHaveAttribute('data-status', 'complete')
      await snap(page, `chat-touch-${width}`)
    } finally {
      await context.close()
    }
  })
}
