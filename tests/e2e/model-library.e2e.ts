import { expect, test } from '@playwright/test'
import { startFakeHfHub, type FakeHub } from '../fixtures/fake-hf-hub/server'
import { encodeGguf } from '../fixtures/gguf/gguf-writer'
import { tinyLlamaGguf } from '../fixtures/gguf/tiny-llama'
import { openApp, snap } from './helpers'

// The model library in the real app against a fake Hugging Face hub serving the tiny GGUF:
// point the app at the hub (a mirror address), search, read the quantisations with their
// fit from the remote header, download one through a dropped connection, and find it on disk.
let hub: FakeHub

test.describe.configure({ mode: 'serial' })

test.beforeAll(async () => {
  const tiny = encodeGguf(tinyLlamaGguf({ seed: 5 }))
  hub = await startFakeHfHub([{ id: 'acme/Tiny-Chat-GGUF', downloads: 4321, likes: 12, license: 'apache-2.0', files: [{ path: 'tiny-chat-Q4_K_M.gguf', content: tiny }] }], {
    faults: { dropAt: [0.5] }
  })
})
test.afterAll(async () => hub.close())

test('search the hub, check the fit, download with resume, see it on disk', async ({ page }) => {
  await openApp(page, '#/local-models')
  const library = page.getByTestId('model-library')
  await library.getByText('Hub mirror, Ollama registry, proxy and token').click()
  await page.getByLabel('Hugging Face address (mirror)').fill(hub.url)
  await library.getByRole('button', { name: 'Save' }).click()
  await expect(library.getByRole('status')).toHaveText('Saved')

  await page.getByTestId('library-search').fill('tiny')
  await page.getByTestId('library-search').press('Enter')
  const entry = page.getByTestId('library-entry-hf').filter({ hasText: 'acme/Tiny-Chat-GGUF' })
  await expect(entry).toContainText('4,321 downloads', { timeout: 20_000 })
  await entry.getByRole('button', { name: 'Files and fit' }).click()
  const file = page.getByTestId('library-file').filter({ hasText: 'tiny-chat-Q4_K_M.gguf' })
  await expect(file).toContainText('Q4_K_M', { timeout: 20_000 })
  await expect(file).toContainText(/fits \(/)
  await expect(file).toContainText('recommended')
  await snap(page, 'model-library-fit')

  await file.getByRole('button', { name: 'Download' }).click()
  const download = page.getByTestId('library-download').filter({ hasText: 'hf:acme/Tiny-Chat-GGUF' })
  await expect(download).toHaveAttribute('data-phase', 'success', { timeout: 20_000 })
  await expect(download).toContainText('Done, verified')
  await snap(page, 'model-library-done')

  await page.getByTestId('library-search').fill('tiny-chat')
  await page.getByTestId('library-search').press('Enter')
  await expect(page.getByTestId('library-entry-disk').filter({ hasText: 'tiny-chat-Q4_K_M' })).toBeVisible({ timeout: 20_000 })
})
