import { expect, test, type Page } from '@playwright/test'
import { pngBytes, startFakeImages, type FakeImages } from '../fixtures/fake-images'
import { startFakeOpenAI } from '../fixtures/fake-openai'
import { configureProvider, snap } from './helpers'

// Issue 9's flow against the real app in browser mode and a fake polling image provider (BFL
// wire): add a key, pick an image model, see a validation message, generate and watch the task
// poll, see the image in the gallery, zoom, reuse its parameters, reload while a second task
// runs and find it again, cancel it, delete the first.
const KEY = 'bfl-e2e-key-0123456789abcdef'
let fake: FakeImages
let pendingPolls = 0
let hold = false

test.describe.configure({ mode: 'serial' })

test.beforeAll(async () => {
  fake = await startFakeImages()
  fake.setDefault('POST /v1/', (req) => {
    if (req.headers['x-key'] !== KEY) return { status: 401, json: { detail: 'Not authenticated' } }
    if ((req.body as { prompt?: string } | undefined)?.prompt === 'a prompt that fails') return { status: 500, json: { detail: 'Internal error' } }
    pendingPolls = 2
    return { json: { id: 'job', polling_url: `${fake.origin}/poll/job-${fake.requests.length}` } }
  })
  fake.setDefault('GET /poll/', () => {
    if (hold || pendingPolls-- > 0) return { json: { status: 'Pending' } }
    return { json: { status: 'Ready', result: { sample: `${fake.origin}/files/result.png` } } }
  })
})

test.afterAll(async () => fake.close())

const addBflKey = (page: Page) => configureProvider(page, 'bfl', fake.origin, KEY)

test('generate with a polling provider: progress, gallery, zoom, reuse, cancel, delete', async ({ page }) => {
  await addBflKey(page)
  await page.getByTestId('nav-images').click()
  const images = page.getByTestId('page-images')
  await expect(images).toBeVisible()
  await images.getByTestId('image-model-picker').selectOption({ value: 'bfl\u0000flux-dev' })
  const panel = images.getByTestId('param-panel')
  await expect(panel.getByTestId('param-steps')).toHaveValue('28')
  await expect(panel.getByTestId('param-width-slider')).toHaveAttribute('step', '32')

  // Validation names the allowed values and blocks generating.
  await panel.getByTestId('param-width').fill('1000')
  await expect(panel.getByTestId('issue-width')).toContainText('between 256 and 1440 in steps of 32')
  await expect(images.getByTestId('image-generate')).toBeDisabled()
  await panel.getByTestId('param-width').fill('1024')
  await expect(panel.getByTestId('issue-width')).toHaveCount(0)

  await panel.getByTestId('param-prompt').fill('a lighthouse at dusk')
  await panel.getByTestId('param-seed').fill('42')
  await images.getByTestId('image-generate').click()

  const task = images.getByTestId('image-task').first()
  await expect(task.getByTestId('image-task-state')).toContainText('attempt 1')
  await snap(page, 'images-task-polling')
  // Done: the image lands in the gallery and the task leaves the list by itself (issue 17).
  await expect(images.getByTestId('gallery-group').first()).toContainText('a lighthouse at dusk', { timeout: 20_000 })
  await expect(images.locator('[data-testid="image-task"]', { hasText: 'a lighthouse at dusk' })).toHaveCount(0)
  const item = images.getByTestId('gallery-item').first()
  await expect(item.getByTestId('gallery-image')).toBeVisible()
  await expect(item.getByTestId('gallery-params')).toContainText('1024×768 · seed 42 · 28 steps')
  await expect(images.getByTestId('gallery-group').first()).toContainText('a lighthouse at dusk')
  const sent = fake.requestsTo('POST /v1/flux-dev').at(-1)!.body
  expect(sent).toMatchObject({ prompt: 'a lighthouse at dusk', seed: 42, width: 1024, height: 768, steps: 28 })
  await snap(page, 'images-gallery')

  // Zoom opens the image in a dialog.
  await item.getByTestId('gallery-zoom').click()
  await expect(page.getByTestId('zoom-dialog')).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(page.getByTestId('zoom-dialog')).toHaveCount(0)

  // Copy puts the PNG on the clipboard; Save as downloads it under a name from the prompt.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'])
  await item.getByTestId('gallery-copy').click()
  await expect(item.getByRole('status')).toHaveText('Copied')
  const download = page.waitForEvent('download')
  await item.getByTestId('gallery-save').click()
  expect((await download).suggestedFilename()).toMatch(/^a-lighthouse-at-dusk-[\w-]+\.png$/)

  // Reuse parameters brings back the prompt, seed and size.
  await panel.getByTestId('param-prompt').fill('something else')
  await panel.getByTestId('param-seed').fill('7')
  await panel.getByTestId('param-width').fill('512')
  await item.getByTestId('gallery-reuse').click()
  await expect(panel.getByTestId('param-prompt')).toHaveValue('a lighthouse at dusk')
  await expect(panel.getByTestId('param-seed')).toHaveValue('42')
  await expect(panel.getByTestId('param-width')).toHaveValue('1024')

  // A second task that never finishes: cancel it.
  hold = true
  await panel.getByTestId('param-prompt').fill('a task to cancel')
  await images.getByTestId('image-generate').click()
  const second = images.locator('[data-testid="image-task"]', { hasText: 'a task to cancel' })
  await expect(second.getByTestId('image-task-state')).toContainText('attempt')
  // The task belongs to the core: a reload re-attaches to it, still polling.
  await page.reload()
  await expect(page.getByTestId('page-images')).toBeVisible({ timeout: 30_000 })
  await expect(second.getByTestId('image-task-state')).toContainText('attempt')
  await snap(page, 'images-reattached')
  await second.getByTestId('image-task-cancel').click()
  await expect(second).toHaveAttribute('data-state', 'cancelled')
  hold = false

  // After the reload the page picked the first usable model (which depends on the other specs' keys): pick one.
  await images.getByTestId('image-model-picker').selectOption({ value: 'bfl\u0000flux-kontext-pro' })
  // Randomise fills the seed with a whole number.
  await panel.getByTestId('seed-randomise').click()
  await expect(panel.getByTestId('param-seed')).toHaveValue(/^\d+$/)

  // Use the result as a reference image of the Kontext model.
  const lighthouse = images.locator('[data-testid="gallery-group"]', { hasText: 'a lighthouse at dusk' })
  await lighthouse.getByTestId('gallery-reference').click()
  await expect(panel.getByTestId('reference-image')).toHaveCount(1)
  await panel.getByTestId('param-prompt').fill('the same lighthouse in winter')
  await images.getByTestId('image-generate').click()
  await expect(images.getByTestId('gallery-group').filter({ hasText: 'the same lighthouse in winter' })).toHaveCount(1, { timeout: 20_000 })
  const editBody = fake.requestsTo('POST /v1/flux-kontext-pro').at(-1)!.body as Record<string, unknown>
  expect(String(editBody['input_image'])).toMatch(/^data:image\/png;base64,/)

  // Delete the first generated image.
  await lighthouse.getByTestId('gallery-delete').click()
  await lighthouse.getByTestId('gallery-delete-confirm').click()
  await expect(images.locator('[data-testid="gallery-group"]', { hasText: 'a lighthouse at dusk' })).toHaveCount(0)
  // Deleted for good: still gone after a reload.
  await page.reload()
  await expect(page.getByTestId('page-images')).toBeVisible({ timeout: 30_000 })
  await expect(page.getByTestId('gallery-group').filter({ hasText: 'a lighthouse at dusk' })).toHaveCount(0)
})

test('the images made are in Usage: by model, by scene and in the CSV, with their price', async ({ page }) => {
  // (The test above made a flux-dev and a flux-kontext-pro image; a generation deleted since still cost what it cost.)
  await addBflKey(page)
  await page.getByTestId('nav-usage').click()
  const usage = page.getByTestId('usage-section')
  await usage.getByTestId('usage-group').selectOption('model')
  const row = (label: string) => usage.getByTestId('usage-row').filter({ has: page.locator('td:first-child', { hasText: new RegExp(`^${label}( · .+)?$`) }) })
  await expect(row('flux-dev')).toHaveCount(1)
  expect(Number((await row('flux-dev').locator('td:nth-child(4)').innerText()).replace(/[^0-9.]/g, ''))).toBeGreaterThan(0)
  await expect(row('flux-kontext-pro')).toHaveCount(1)
  await usage.getByTestId('usage-group').selectOption('scene')
  await expect(row('Image Generation')).toHaveCount(1)
  expect(Number(await row('Image Generation').locator('td:nth-child(2)').innerText())).toBeGreaterThanOrEqual(2)
  await usage.getByTestId('usage-group').selectOption('provider')
  const download = page.waitForEvent('download')
  await usage.getByTestId('usage-csv').click()
  const { readFileSync } = await import('node:fs')
  const lines = readFileSync((await (await download).path())!, 'utf8').trim().split('\r\n')
  const bfl = lines.filter((l) => l.startsWith('bfl,')).map((l) => l.split(','))
  expect(bfl.reduce((n, r) => n + Number(r[3]), 0)).toBeGreaterThan(0)
})

// Issue 17: the count makes several tasks; failed ones go in one click; finished ones leave the
// list; the lightbox shows the image at its pixel size over a dark backdrop; GPT Image 1 offers quality.
test('image count, dismissing failed tasks together, the lightbox at the image size, GPT Image 1 quality', async ({ page }) => {
  test.setTimeout(120_000)
  fake.setDefault('GET /files/', { bytes: pngBytes(640, 480), contentType: 'image/png' })
  await addBflKey(page)
  await page.getByTestId('nav-images').click()
  const images = page.getByTestId('page-images')
  await images.getByTestId('image-model-picker').selectOption({ value: 'bfl\u0000flux-dev' })
  const panel = images.getByTestId('param-panel')
  await expect(panel.getByLabel('Number of images')).toBeVisible()

  // Two that fail, dismissed together.
  await panel.getByTestId('param-count').selectOption('2')
  await panel.getByTestId('param-prompt').fill('a prompt that fails')
  await images.getByTestId('image-generate').click()
  const failed = images.locator('[data-testid="image-task"][data-state="failed"]', { hasText: 'a prompt that fails' })
  await expect(failed).toHaveCount(2, { timeout: 20_000 })
  await images.getByTestId('image-tasks-dismiss-failed').click()
  await expect(images.locator('[data-testid="image-task"]', { hasText: 'a prompt that fails' })).toHaveCount(0)

  // Two that succeed: both reach the gallery, and their tasks leave the list.
  await panel.getByTestId('param-prompt').fill('two harbours at noon')
  await images.getByTestId('image-generate').click()
  await expect(images.getByTestId('gallery-group').filter({ hasText: 'two harbours at noon' }).getByTestId('gallery-item')).toHaveCount(2, { timeout: 20_000 })
  await expect(images.locator('[data-testid="image-task"]', { hasText: 'two harbours at noon' })).toHaveCount(0, { timeout: 5_000 })

  // The lightbox: 640×480 shown at 640×480 (it fits the window), over a dark, full-window backdrop.
  const group = images.getByTestId('gallery-group').filter({ hasText: 'two harbours at noon' })
  await group.getByTestId('gallery-zoom').first().click()
  const zoomed = page.getByTestId('zoom-image')
  await expect(zoomed).toBeVisible()
  const b = (await zoomed.boundingBox())!
  expect(Math.round(b.width)).toBe(640)
  expect(Math.round(b.height)).toBe(480)
  const overlay = await page.getByTestId('zoom-overlay').evaluate((el) => getComputedStyle(el).backgroundColor)
  const alpha = Number(/rgba?\([^)]*,\s*([\d.]+)\)/.exec(overlay)?.[1] ?? '1')
  expect(alpha).toBeGreaterThanOrEqual(0.8)
  // Nothing of the page sits above the backdrop (the sidebar is dimmed too).
  const top = await page.evaluate(() => document.elementFromPoint(20, 20)?.closest('[data-testid]')?.getAttribute('data-testid'))
  expect(top).toBe('zoom-dialog')
  await page.mouse.click(20, 20)
  await expect(page.getByTestId('zoom-dialog')).toHaveCount(0)

  // GPT Image 1: the panel offers its quality (and the count), from the model's schema.
  const openai = await startFakeOpenAI()
  try {
    await configureProvider(page, 'openai', openai.url, 'sk-images-quality-0001')
    // GPT Image 1 is not on by default: switch it on in the provider's model list.
    const toggle = page.getByTestId('provider-detail-openai').getByTestId('model-toggle-gpt-image-1')
    if (!(await toggle.isChecked())) await toggle.click()
    await expect(toggle).toBeChecked()
    await page.getByTestId('nav-images').click()
    await images.getByTestId('image-model-picker').selectOption({ value: 'openai\u0000gpt-image-1' })
    const quality = panel.getByLabel('Quality')
    await expect(quality).toBeVisible()
    expect(await quality.locator('option').allTextContents()).toEqual(['Auto', 'low', 'medium', 'high'])
    await expect(panel.getByTestId('param-count')).toBeVisible()
  } finally {
    await openai.close()
  }
})
