import { expect, test } from '@playwright/test'
import { chatChunks, startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../fixtures/fake-openai'
import { openApp, pickModel } from './helpers'

// A custom OpenAI-compatible provider added the way a user does: Settings → Providers, a search
// for "compatible" finds "Add custom provider"; name, address, key and a typed model; fetch the
// server's list; set a model's abilities; chat with it.
let fake: FakeOpenAI
const KEY = 'sk-custom-e2e-0042'

test.describe.configure({ mode: 'serial' })
test.beforeAll(async () => {
  fake = await startFakeOpenAI()
  fake.setDefault('/models', { kind: 'json', body: { object: 'list', data: [{ id: 'house-llm', object: 'model', created: 1, owned_by: 'me' }, { id: 'fetched-llm', object: 'model', created: 1, owned_by: 'me' }] } })
  fake.setDefault('/chat/completions', (req: RecordedRequest) => {
    const body = req.body as { model: string }
    return { kind: 'sse', chunks: chatChunks([`Gateway ${body.model} `, 'answers.']) }
  })
})
test.afterAll(async () => fake.close())

test('add a custom provider in Settings, fetch its models, set abilities and chat with it', async ({ page }) => {
  await openApp(page, '#/settings')
  await page.getByTestId('provider-search').fill('compatible')
  const add = page.getByTestId('provider-add-custom')
  await expect(add).toBeVisible()
  await add.click()
  const form = page.getByTestId('custom-provider-form')
  await form.getByTestId('custom-name').fill('E2E Gateway')
  await expect(form.getByTestId('custom-slug')).toHaveAttribute('placeholder', 'e2e-gateway')
  await form.getByTestId('custom-base-url').fill(fake.url)
  await form.getByTestId('custom-api-key').fill(KEY)
  await form.getByTestId('custom-models').fill('house-llm')
  await form.getByTestId('custom-save').click()

  const detail = page.getByTestId('provider-detail-custom-e2e-gateway')
  await expect(detail).toBeVisible()
  await expect(detail.getByTestId('provider-key-status')).toContainText('0042')
  expect(await page.content()).not.toContain(KEY)
  await expect(page.getByTestId('provider-custom-e2e-gateway')).toContainText('E2E Gateway')

  await detail.getByTestId('provider-fetch').click()
  await expect(detail.getByTestId('model-toggle-fetched-llm')).toBeChecked()
  await detail.getByTestId('ability-vision-fetched-llm').click()
  await expect(detail.getByTestId('ability-vision-fetched-llm')).toBeChecked()

  await page.getByTestId('nav-chat').click()
  await page.getByTestId('new-chat').click()
  await pickModel(page, 'custom-e2e-gateway', 'fetched-llm')
  await page.getByTestId('composer-input').fill('hello gateway')
  await page.getByTestId('composer-input').press('Enter')
  await expect(page.getByTestId('message-assistant').last()).toContainText('Gateway fetched-llm answers.')
  const chat = fake.requestsTo('/chat/completions').find((r) => (r.body as { model: string }).model === 'fetched-llm')
  expect(chat?.headers.authorization).toBe(`Bearer ${KEY}`)
})
