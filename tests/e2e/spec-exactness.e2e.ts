import { expect, test } from '@playwright/test'
import { chatChunks, errorBody, startFakeOpenAI, type FakeOpenAI } from '../fixtures/fake-openai'
import { pngBytes, startFakeImages, type FakeImages } from '../fixtures/fake-images/index'
import { configureProvider, openApp, pickModel, snap } from './helpers'

// Issue 14 in the real app (browser mode): Test connection with a chosen model, its messages in
// Settings, and an image a chat reply produces shown in the message, after a reload too.
const KEY = 'sk-e2e-spec-exact-0123456789'
let openai: FakeOpenAI
let gemini: FakeImages
const PNG = pngBytes(24, 16, [20, 120, 220])
const B64 = Buffer.from(PNG).toString('base64')

test.describe.configure({ mode: 'serial' })

test.beforeAll(async () => {
  openai = await startFakeOpenAI()
  gemini = await startFakeImages()
})
test.afterAll(async () => {
  await openai.close()
  await gemini.close()
})

test('Test connection uses the model the user picks, and its errors do not send them to Settings', async ({ page }) => {
  await configureProvider(page, 'deepseek', openai.url, KEY)
  const detail = page.getByTestId('provider-detail-deepseek')
  const select = detail.getByTestId('provider-test-model')
  await expect(select).toBeVisible()
  // By default the first enabled chat model is chosen (the catalogue's check model is v4-flash too).
  expect(await select.inputValue()).toBe('deepseek-v4-flash')
  await select.selectOption('deepseek-v4-pro')
  openai.enqueue('/chat/completions', { kind: 'sse', chunks: chatChunks(['ok']) })
  await detail.getByTestId('provider-test').click()
  await expect(detail.getByTestId('provider-status')).toContainText('deepseek-v4-pro')
  expect((openai.requestsTo('/chat/completions').at(-1)!.body as { model: string }).model).toBe('deepseek-v4-pro')

  openai.enqueue('/chat/completions', { kind: 'json', status: 401, body: errorBody('Authentication Fails', 'invalid_api_key') })
  await detail.getByTestId('provider-test').click()
  const error = detail.getByTestId('provider-error')
  await expect(error).toBeVisible()
  await expect(error).not.toContainText('in Settings')
  await snap(page, 'settings-test-connection-model')
})

test('an image in a chat reply is shown in the message and kept after a reload', async ({ page }) => {
  await configureProvider(page, 'google', gemini.origin, 'AIza-e2e-spec-exact-0123456789')
  const sse = (chunk: unknown) => `data: ${JSON.stringify(chunk)}\r\n\r\n`
  gemini.setDefault('POST /v1beta/models/gemini-2.5-flash-image:streamGenerateContent', {
    contentType: 'text/event-stream',
    text:
      sse({ candidates: [{ content: { role: 'model', parts: [{ text: 'A blue square.' }] }, index: 0 }] }) +
      sse({ candidates: [{ content: { role: 'model', parts: [{ inlineData: { mimeType: 'image/png', data: B64 } }] }, finishReason: 'STOP', index: 0 }] })
  })
  await openApp(page, '#/chat')
  await pickModel(page, 'google', 'gemini-2.5-flash-image')
  await page.getByTestId('composer-input').fill('Draw a blue square')
  await page.getByTestId('composer-input').press('Enter')
  const reply = page.getByTestId('message-assistant').last()
  await expect(reply).toContainText('A blue square.')
  await expect(reply.getByTestId('message-image')).toHaveCount(1)
  await page.reload()
  const again = page.getByTestId('message-assistant').last()
  await expect(again.getByTestId('message-image')).toHaveAttribute('src', `data:image/png;base64,${B64}`)
  await snap(page, 'chat-reply-image')
})
