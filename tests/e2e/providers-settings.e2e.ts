import { expect, test } from '@playwright/test'
import { closedPortUrl, startFakeOllama } from '../fixtures/fake-ollama'
import { startFakeOpenAI, type FakeOpenAI } from '../fixtures/fake-openai'
import { startFakeXinference } from '../fixtures/fake-xinference'
import { configureProvider, openApp, openProvider, setProviderAddress, snap } from './helpers'

// Issue 17: Settings → Providers as a list + detail with logos, set-up and local providers
// pinned on top, sorted by name, a search; "Fetch model list" says what it found and enables
// the new models in one step; at 1920 px the list and the detail sit side by side.
let fake: FakeOpenAI

test.describe.configure({ mode: 'serial' })
test.beforeAll(async () => {
  fake = await startFakeOpenAI()
})
test.afterAll(async () => fake.close())

const models = (...ids: string[]) => ({ kind: 'json' as const, body: { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 1, owned_by: 'acme' })) } })

test('list + detail: logos, pinned set-up providers sorted by name, search, fetch result with one-step enable', async ({ page }) => {
  await page.setViewportSize({ width: 1920, height: 1080 })
  await configureProvider(page, 'openai', fake.url, 'sk-providers-e2e-0001')
  await openApp(page, '#/settings')

  // The set-up provider and the local servers are pinned, in name order; the rest follow, in name order.
  // Settings loads on first visit: wait for the list before reading it.
  await expect(page.getByTestId('providers-pinned').getByTestId('provider-openai')).toBeVisible()
  const pinned = await page.getByTestId('providers-pinned').locator('[data-testid^="provider-"]').allTextContents()
  expect(pinned.some((t) => t.startsWith('OpenAI'))).toBe(true)
  expect(pinned.some((t) => t.startsWith('Ollama'))).toBe(true)
  const names = await page.getByTestId('providers-pinned').locator('[data-testid^="provider-"] span.truncate').allTextContents()
  expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' })))
  const rest = await page.getByTestId('providers-rest').locator('[data-testid^="provider-"] span.truncate').allTextContents()
  expect(rest).toEqual([...rest].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' })))
  expect(rest).not.toContain('OpenAI')
  // Logos from the icon set; a monogram where it has none.
  await expect(page.getByTestId('provider-openai').locator('[data-provider-icon="openai"]')).toHaveCount(1)
  await expect(page.getByTestId('provider-taichu').locator('[data-provider-icon="monogram"]')).toHaveText('TA')

  // At 1920 the list and the detail are side by side.
  await page.getByTestId('provider-openai').click()
  const list = (await page.getByTestId('provider-search').boundingBox())!
  const detail = (await page.getByTestId('provider-detail-openai').boundingBox())!
  expect(detail.x).toBeGreaterThan(list.x + list.width)
  expect(Math.abs(detail.y - list.y)).toBeLessThan(80)

  // Search narrows the list by name.
  await page.getByTestId('provider-search').fill('anthro')
  await expect(page.getByTestId('provider-anthropic')).toBeVisible()
  await expect(page.getByTestId('provider-openai')).toHaveCount(0)
  await page.getByTestId('provider-search').fill('')

  // Fetch model list: what is new, what went away, and enable the new ones in one click.
  fake.setDefault('/models', models('gpt-4o-mini', 'ft:gpt-4o-mini:e2e:alpha', 'ft:gpt-4o-mini:e2e:beta'))
  const panel = page.getByTestId('provider-detail-openai')
  await panel.getByTestId('provider-fetch').click()
  const result = panel.getByTestId('provider-fetch-result')
  await expect(result).toContainText('Fetched 3 models')
  fake.setDefault('/models', models('gpt-4o-mini', 'ft:gpt-4o-mini:e2e:beta', 'ft:gpt-4o-mini:e2e:gamma'))
  await panel.getByTestId('provider-fetch').click()
  await expect(result.getByTestId('provider-fetch-added')).toContainText('ft:gpt-4o-mini:e2e:gamma')
  await expect(result.getByTestId('provider-fetch-removed')).toContainText('ft:gpt-4o-mini:e2e:alpha')
  await expect(panel.getByTestId('model-toggle-ft:gpt-4o-mini:e2e:gamma')).not.toBeChecked()
  await result.getByTestId('provider-enable-fetched').click()
  await expect(panel.getByTestId('model-toggle-ft:gpt-4o-mini:e2e:gamma')).toBeChecked()
  await expect(result.getByTestId('provider-enable-fetched')).toHaveCount(0)
})

// A local server's models are what the server has: when Ollama does not answer, its page says so
// with the address it tried instead of listing the catalogue's ~50 Ollama models as if installed;
// "Check again" lists what it really has once it answers there.
test('Ollama that cannot be reached: the page says so with its address and lists no catalogue model; Check again lists its own', async ({ page }) => {
  const address = await closedPortUrl()
  const detail = await openProvider(page, 'ollama')
  await setProviderAddress(detail, address)
  try {
    await expect(detail.getByTestId('provider-server-down')).toContainText(address)
    await expect(detail.locator('[data-testid^="model-toggle-"]')).toHaveCount(0)
    await snap(page, 'provider-ollama-unreachable')

    // Ollama starts at that address: Check again lists its models, and only those.
    const running = await startFakeOllama({ port: Number(new URL(address).port) })
    try {
      await detail.getByTestId('provider-server-recheck').click()
      await expect(detail.getByTestId('provider-server-down')).toHaveCount(0)
      await expect(detail.getByTestId('model-toggle-llama3.2:latest')).toBeVisible()
      await expect(detail.locator('[data-testid^="model-toggle-"]')).toHaveCount(running.installed.size)
    } finally {
      await running.close()
    }
  } finally {
    await setProviderAddress(detail, '')
  }
})

// Xinference offers "Fetch model list" like the other local servers; of what it has launched,
// the LLMs that chat are listed as chat models (the test-connection choice), not its reranker.
test('Xinference: Fetch model list reads its launched models; only its chat LLMs are chat models', async ({ page }) => {
  const xinference = await startFakeXinference()
  const detail = await openProvider(page, 'xinference')
  try {
    await setProviderAddress(detail, xinference.url)
    await detail.getByTestId('provider-fetch').click()
    await expect(detail.getByTestId('provider-fetch-result')).toBeVisible()
    await expect(detail.getByTestId('model-toggle-qwen2.5-instruct')).toBeChecked()
    await expect(detail.getByTestId('model-toggle-bge-reranker-v2-m3')).toHaveCount(0)
    const testChoices = () => detail.getByTestId('provider-test-model').locator('option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value))
    await expect.poll(testChoices).toEqual(['qwen2.5-instruct', 'qwen2-vl-instruct', 'deepseek-r1-distill-qwen'])
  } finally {
    await setProviderAddress(detail, '')
    await xinference.close()
  }
})
