import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { writeTinyLlamaGguf } from '../fixtures/gguf/tiny-llama'
import { openApp, pickModel } from './helpers'

// The built-in engine through the whole app in browser mode: a GGUF in the app's models folder is
// found, loaded by the engine process on the Local models page with its real memory shown, and a
// reply streams into the chat from it with no key and no other program.
test.describe.configure({ mode: 'serial' })
test.beforeAll(() => {
  const models = join(process.env['E2E_DATA_DIR']!, 'main', 'models')
  mkdirSync(models, { recursive: true })
  writeTinyLlamaGguf(join(models, 'tiny-e2e.gguf'))
  // A vision projector beside it: listed as unused (the built-in engine reads text only).
  writeTinyLlamaGguf(join(models, 'mmproj-tiny-e2e.gguf'), { seed: 7 })
})

test('the Local models page lists the model on disk, loads it and shows the engine memory', async ({ page }) => {
  await openApp(page, '#/local-models')
  const row = page.getByTestId('builtin-row-tiny-e2e')
  await expect(row).toBeVisible({ timeout: 15_000 })
  await expect(row).toContainText('App folder')
  await expect(page.getByTestId('builtin-projector-tiny-e2e')).toContainText('Vision projector found, not used')
  await page.getByTestId('builtin-load-tiny-e2e').click()
  await expect(row).toContainText('2,048 tokens', { timeout: 30_000 })
  await expect(page.getByTestId('builtin-memory')).toContainText('in use (measured)', { timeout: 15_000 })
  // With a model loaded in the built-in engine, Ollama's sections speak of Ollama only: no line
  // says that no model is loaded.
  const ollamaRunning = page.getByTestId('ollama-running')
  await expect(ollamaRunning).toContainText('Loaded in Ollama')
  await expect(ollamaRunning).toContainText('Ollama has no model loaded')
  await expect(page.getByText(/^No model is loaded/)).toHaveCount(0)
  await page.getByTestId('builtin-unload-tiny-e2e').click()
  await expect(page.getByTestId('builtin-load-tiny-e2e')).toBeVisible({ timeout: 15_000 })
})

test('a reply from the built-in engine streams into the chat', async ({ page }) => {
  await openApp(page, '#/chat')
  await page.getByTestId('new-chat').click()
  await pickModel(page, 'builtin', 'tiny-e2e')
  await page.getByTestId('composer-input').fill('Hello there')
  await page.getByTestId('composer-input').press('Enter')
  const reply = page.getByTestId('message-assistant').last()
  await expect(reply).toHaveAttribute('data-status', 'complete', { timeout: 60_000 })
  expect(((await reply.textContent()) ?? '').length).toBeGreaterThan(10)
  await expect(reply.getByTestId('message-stats')).toContainText('tok/s')
})

test('the engine settings are set on the page with their limits, and a context length shows its memory and is loaded with', async ({ page }) => {
  await openApp(page, '#/local-models')
  const form = page.getByTestId('builtin-settings')
  await expect(form).toBeVisible({ timeout: 15_000 })
  // Out of range: the range is said and nothing can be saved.
  await page.getByTestId('builtin-threads').fill('999')
  await expect(form).toContainText('Enter a whole number from 1 to')
  await expect(page.getByTestId('builtin-settings-save')).toBeDisabled()
  await page.getByTestId('builtin-threads').fill('1')
  await page.getByTestId('builtin-keep-alive').fill('2')
  await page.getByTestId('builtin-settings-save').click()
  await expect(page.getByTestId('builtin-settings-saved')).toHaveText('Saved.')
  await page.reload()
  await expect(page.getByTestId('builtin-keep-alive')).toHaveValue('2', { timeout: 15_000 })
  await expect(page.getByTestId('builtin-threads')).toHaveValue('1')

  // A context length: its memory before it is saved, then the model loads with it.
  await page.getByTestId('builtin-context-tiny-e2e').click()
  const editor = page.getByTestId('builtin-context-editor-tiny-e2e')
  const estimate = editor.getByTestId('builtin-context-estimate')
  await expect(estimate).toContainText('2,048 tokens', { timeout: 15_000 })
  const before = await estimate.textContent()
  await editor.getByTestId('builtin-context-input').fill('100')
  await expect(estimate).toContainText('Enter a whole number from 512')
  await expect(editor.getByTestId('builtin-context-save')).toBeDisabled()
  await editor.getByTestId('builtin-context-input').fill('1024')
  await expect(estimate).toContainText('1,024 tokens', { timeout: 15_000 })
  expect(await estimate.textContent()).not.toBe(before)
  await editor.getByTestId('builtin-context-input').press('Enter')
  await expect(editor.getByTestId('builtin-context-default')).toBeVisible()
  const row = page.getByTestId('builtin-row-tiny-e2e')
  if (await page.getByTestId('builtin-unload-tiny-e2e').isVisible()) await page.getByTestId('builtin-unload-tiny-e2e').click()
  await page.getByTestId('builtin-load-tiny-e2e').click()
  await expect(row).toContainText('1,024 tokens (your setting)', { timeout: 30_000 })
  await editor.getByTestId('builtin-context-default').click()
  await expect(editor.getByTestId('builtin-context-default')).toBeHidden()
  await page.getByTestId('builtin-unload-tiny-e2e').click()
})

test('an image attached for a built-in model is refused with the reason: the engine reads text only', async ({ page }) => {
  await openApp(page, '#/chat')
  await page.getByTestId('new-chat').click()
  await pickModel(page, 'builtin', 'tiny-e2e')
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')
  await page.getByTestId('attach-input').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: png })
  await expect(page.getByTestId('composer-notice')).toContainText('The built-in engine does not read images')
  await expect(page.getByTestId('composer-images')).toHaveCount(0)
})
