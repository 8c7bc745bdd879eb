import { expect, test } from '@playwright/test'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ChildProcess } from 'node:child_process'
import { startFakeHfHub, type FakeHub } from '../fixtures/fake-hf-hub/server'
import { encodeGguf } from '../fixtures/gguf/gguf-writer'
import { tinyLlamaGguf } from '../fixtures/gguf/tiny-llama'
import { openApp, snap } from './helpers'
import { freePort, ownServerPage, startServer, stopServer } from './own-server'

// A new user's first run: a fresh data folder, no key, no model on disk. The first screen offers
// the recommended small models; one click downloads the smallest (from a fake hub on loopback that
// serves the tiny test model under that model's real repository and file name, the hub address set
// the way a mirror user sets it), and the chat opens on it with the built-in engine.
const curated = JSON.parse(readFileSync('catalogue/recommended-models.json', 'utf8')) as { models: Array<{ id: string; name: string; repo: string; file: string; quant: string; license: string; sizeBytes: number }> }
const smallest = [...curated.models].sort((a, b) => a.sizeBytes - b.sizeBytes)[0]!
let hub: FakeHub
let server: ChildProcess | undefined

test.beforeAll(async () => {
  hub = await startFakeHfHub([{ id: smallest.repo, downloads: 1, license: smallest.license, files: [{ path: smallest.file, content: encodeGguf(tinyLlamaGguf({ seed: 7 })) }] }])
})
test.afterAll(async () => {
  if (server) await stopServer(server)
  await hub.close()
})

test('a fresh data folder with no key: three clicks from the first screen to a streamed local reply', async ({ browser }) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-first-run-'))
  writeFileSync(join(dataDir, 'models-library.json'), JSON.stringify({ hubEndpoint: hub.url }))
  const port = await freePort()
  server = await startServer(port, dataDir)
  const { context, page } = await ownServerPage(browser, port)
  try {
    await openApp(page, '#/chat')
    const offline = page.getByTestId('chat-offline')
    await expect(offline).toBeVisible({ timeout: 20_000 })
    const list = page.getByTestId('recommended-models')
    await expect(list.getByRole('listitem').filter({ hasText: /Instruct/ })).toHaveCount(curated.models.length)
    const row = page.getByTestId(`recommended-${smallest.id}`)
    // Size, licence, what it is good at, and the fit word for this machine.
    await expect(row).toContainText(smallest.license)
    await expect(row).toContainText(smallest.quant)
    await expect(row).toContainText(/fits \(|tight \(|does not fit \(/)
    await snap(page, 'first-run')

    // Click 1: download. When it is verified, the chat is on the model by itself.
    await row.getByRole('button', { name: `Download ${smallest.name}` }).click()
    const builtinId = `hf/${smallest.repo}/${smallest.file.replace(/\.gguf$/, '')}`
    await expect(page.getByTestId('model-chip-model')).toContainText(builtinId.split('/').pop()!, { timeout: 30_000 })
    expect(hub.stats.bytesSent).toBeGreaterThan(0)

    // Clicks 2 and 3: the composer, then Send.
    await page.getByTestId('composer-input').click()
    await page.keyboard.type('hello')
    await page.getByTestId('send').click()
    const reply = page.getByTestId('message-assistant').last()
    // Streamed: text arrives while the reply is still running (the tiny model never stops by itself, so the user stops it).
    await expect(reply).toHaveAttribute('aria-busy', 'true', { timeout: 30_000 })
    await expect.poll(async () => ((await reply.textContent()) ?? '').trim().length, { timeout: 30_000 }).toBeGreaterThan(3)
    await expect(reply).toHaveAttribute('aria-busy', 'true')
    await page.keyboard.press('Escape')
    await expect(reply).not.toHaveAttribute('aria-busy', 'true', { timeout: 20_000 })
    await snap(page, 'first-run-reply')
  } finally {
    await context.close()
  }
})
