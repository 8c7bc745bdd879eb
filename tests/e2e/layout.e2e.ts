import { expect, test, type Locator, type Page } from '@playwright/test'
import { startFakeOpenAI, type FakeOpenAI } from '../fixtures/fake-openai'
import { configureProvider, openApp, pickModel } from './helpers'

// Issue 17: both sidebars collapse and the window remembers it; at 1024×700 the chat header and
// the composer stay on one line inside the window (bounding boxes); the shortcuts sheet.
let fake: FakeOpenAI

test.describe.configure({ mode: 'serial' })
test.use({ viewport: { width: 1024, height: 700 } })

test.beforeAll(async () => {
  fake = await startFakeOpenAI()
})
test.afterAll(async () => fake.close())

type Box = { x: number; y: number; width: number; height: number }
const box = async (l: Locator): Promise<Box> => {
  const b = await l.boundingBox()
  if (!b) throw new Error('not visible')
  return b
}
const inside = (inner: Box, outer: Box) =>
  inner.x >= outer.x - 0.5 && inner.y >= outer.y - 0.5 && inner.x + inner.width <= outer.x + outer.width + 0.5 && inner.y + inner.height <= outer.y + outer.height + 0.5

/** Every control of the chat header and of the composer lies inside its bar, on one line, inside the window. */
async function expectNoClipOrWrap(page: Page) {
  const viewport = { x: 0, y: 0, width: 1024, height: 700 }
  const header = page.getByTestId('page-chat').locator('header').first()
  const headerBox = await box(header)
  expect(headerBox.height).toBeLessThanOrEqual(57)
  expect(inside(headerBox, viewport)).toBe(true)
  for (const item of await header.locator('h1, button').all()) {
    const b = await box(item)
    expect(inside(b, headerBox), `${await item.textContent()} inside the header`).toBe(true)
  }
  // The title truncates rather than wrapping: one line high.
  const title = page.getByTestId('conversation-title')
  expect((await box(title)).height).toBeLessThan(30)
  // Composer: the input and the send button are fully in the window, the controls on one row.
  for (const id of ['composer-input', 'send']) expect(inside(await box(page.getByTestId(id)), viewport), id).toBe(true)
  const controls = page.getByTestId('composer-controls')
  if ((await controls.count()) > 0) {
    const tops = new Set<number>()
    for (const c of await controls.locator(':scope > *').all()) if (await c.isVisible()) tops.add(Math.round((await box(c)).y / 4))
    expect(tops.size, 'composer controls on one row').toBeLessThanOrEqual(1)
  }
  // Nothing in the page scrolls sideways.
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
}

test('at 1024×700 the chat header and composer never wrap or clip, with sidebars open or collapsed; collapse is remembered', async ({ page }) => {
  await configureProvider(page, 'openai', fake.url, 'sk-layout-test-0001')
  await page.getByTestId('nav-chat').click()
  await page.getByTestId('new-chat').click()
  // The model with the most composer controls (reasoning mode, effort, verbosity, search).
  await pickModel(page, 'openai', 'gpt-5.6-sol')
  await page.getByTestId('composer-input').fill('A rather long question so that the title has something to say about layouts at narrow widths')
  await page.getByTestId('composer-input').press('Enter')
  await expect(page.getByTestId('message-assistant').last()).toHaveAttribute('data-status', 'complete')

  await expectNoClipOrWrap(page)

  // Collapse both sidebars with their buttons.
  const navWide = (await box(page.getByTestId('app-nav'))).width
  await page.getByTestId('toggle-nav').click()
  await page.getByTestId('toggle-conversations').click()
  await expect(page.getByTestId('app-nav')).toHaveAttribute('data-collapsed', 'true')
  await expect(page.getByTestId('pane-conversations')).toHaveAttribute('data-collapsed', 'true')
  expect((await box(page.getByTestId('app-nav'))).width).toBeLessThan(navWide / 2)
  // The collapsed nav still names its links for assistive technology.
  await expect(page.getByTestId('nav-settings')).toHaveAccessibleName('Settings')
  await expectNoClipOrWrap(page)

  // Remembered across a reload.
  await page.reload()
  await expect(page.getByTestId('app-nav')).toHaveAttribute('data-collapsed', 'true')
  await expect(page.getByTestId('pane-conversations')).toHaveAttribute('data-collapsed', 'true')
  await expectNoClipOrWrap(page)

  // The keyboard toggles them back (Ctrl+B, Ctrl+Shift+B).
  await page.keyboard.press('Control+b')
  await page.keyboard.press('Control+Shift+B')
  await expect(page.getByTestId('app-nav')).not.toHaveAttribute('data-collapsed', 'true')
  await expect(page.getByTestId('pane-conversations')).not.toHaveAttribute('data-collapsed', 'true')
})

test('Ctrl+/ opens the shortcuts sheet listing every shortcut, the command palette included; Esc closes it', async ({ page }) => {
  await openApp(page, '#/settings')
  await page.keyboard.press('Control+/')
  const sheet = page.getByTestId('shortcuts-sheet')
  await expect(sheet).toBeVisible()
  await expect(sheet.getByTestId('shortcut-command-palette')).toContainText('Command palette')
  await expect(sheet.getByTestId('shortcut-command-palette')).toContainText('Ctrl')
  await expect(sheet.getByTestId('shortcut-command-palette')).toContainText('K')
  for (const id of ['shortcuts', 'toggle-nav', 'toggle-conversations', 'go-chat', 'new-chat', 'send', 'stop', 'generate-image']) {
    await expect(sheet.getByTestId(`shortcut-${id}`)).toBeVisible()
  }
  await page.keyboard.press('Escape')
  await expect(sheet).toHaveCount(0)
  // What the sheet lists, the keys do: Ctrl+3 opens Local models.
  await page.keyboard.press('Control+3')
  await expect(page).toHaveURL(/#\/local-models/)
})

test('focus is visible on keyboard navigation, and the bundled Inter font is used', async ({ page }) => {
  await openApp(page, '#/settings')
  await page.getByTestId('nav-chat').focus()
  await page.keyboard.press('Tab')
  const outline = await page.evaluate(() => {
    const el = document.activeElement as HTMLElement
    const style = getComputedStyle(el)
    return { style: style.outlineStyle, width: parseFloat(style.outlineWidth) }
  })
  expect(outline.style).not.toBe('none')
  expect(outline.width).toBeGreaterThan(0)
  await page.evaluate(() => document.fonts.ready)
  expect(await page.evaluate(() => document.fonts.check('16px "Inter Variable"'))).toBe(true)
  expect(await page.evaluate(() => getComputedStyle(document.body).fontFamily)).toContain('Inter Variable')
})

test('a system set to reduce motion stills the spinners, pulses and transitions; dialogs still open and close', async ({ page }) => {
  // The app's own classes, as built: a spinner, the typing dots, a pulse and a colour transition.
  const motion = (page: Page) =>
    page.evaluate(() => {
      const probe = document.createElement('div')
      probe.innerHTML = '<span class="animate-spin"></span><span class="animate-bounce"></span><span class="animate-pulse"></span><span class="transition-colors"></span>'
      document.body.append(probe)
      const styles = Array.from(probe.children).map((el) => getComputedStyle(el))
      const seconds = (value: string) => Math.max(...value.split(',').map((v) => parseFloat(v) * (v.trim().endsWith('ms') ? 0.001 : 1)))
      const result = {
        animations: styles.slice(0, 3).map((s) => ({ seconds: seconds(s.animationDuration), repeats: s.animationIterationCount })),
        transition: seconds(styles[3]!.transitionDuration)
      }
      probe.remove()
      return result
    })
  await openApp(page, '#/settings')
  const moving = await motion(page)
  expect(moving.animations.every((a) => a.repeats === 'infinite' && a.seconds >= 0.5)).toBe(true)
  expect(moving.transition).toBeGreaterThan(0.1)

  await page.emulateMedia({ reducedMotion: 'reduce' })
  const still = await motion(page)
  for (const a of still.animations) {
    expect(a.repeats).toBe('1')
    expect(a.seconds).toBeLessThan(0.01)
  }
  expect(still.transition).toBeLessThan(0.01)
  // Radix waits for a dialog's exit animation before removing it: it must still leave.
  await page.keyboard.press('Control+/')
  await expect(page.getByTestId('shortcuts-sheet')).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(page.getByTestId('shortcuts-sheet')).toHaveCount(0)
})
