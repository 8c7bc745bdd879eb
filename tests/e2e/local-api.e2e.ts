import { expect, test } from '@playwright/test'
import { createServer } from 'node:net'
import { chatChunks, startFakeOpenAI, type FakeOpenAI } from '../fixtures/fake-openai'
import { configureProvider, openApp, snap } from './helpers'

// Settings → Local API as a user meets it: create a key (shown once), turn the API on, call it
// from another program with that key, see the call counted under the key, revoke it.
let fake: FakeOpenAI

test.beforeAll(async () => {
  fake = await startFakeOpenAI()
  fake.setDefault('/chat/completions', { kind: 'sse', chunks: chatChunks(['from the gateway'], { usage: { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 } }) })
})
test.afterAll(async () => fake.close())

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

test('a key made in Settings lets another program use the configured models, until it is revoked', async ({ page }) => {
  await configureProvider(page, 'openai', fake.url, 'sk-e2e-local-api-0123456789')
  const port = await freePort()
  await openApp(page, '#/settings')
  const section = page.getByTestId('local-api-section')
  await section.scrollIntoViewIfNeeded()
  await expect(section.getByTestId('local-api-state')).toHaveText('Off')
  await section.getByTestId('local-api-port').fill(String(port))
  await section.getByTestId('local-api-port').blur()
  await section.getByTestId('local-api-key-name').fill('my editor')
  await section.getByTestId('local-api-create-key').click()
  const secretBox = section.getByTestId('local-api-secret')
  await expect(secretBox).toContainText('not shown again')
  const secret = (await secretBox.locator('code').innerText()).trim()
  expect(secret).toMatch(/^sb-/)
  // The examples carry the new key, ready to copy.
  await expect(section.locator('pre').first()).toContainText(secret)

  await section.getByTestId('local-api-enabled').check()
  await expect(section.getByTestId('local-api-state')).toHaveText(`Running at http://127.0.0.1:${port}/v1`)
  await snap(page, 'settings-local-api')

  const call = () =>
    fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
    })
  const reply = await call()
  expect(reply.status).toBe(200)
  expect(((await reply.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe('from the gateway')

  // An alias typed in Settings names the same model for other programs.
  await section.getByTestId('local-api-aliases').fill('fast = openai/gpt-4o-mini')
  await section.getByTestId('local-api-aliases').blur()
  await expect
    .poll(async () => (await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'fast', messages: [{ role: 'user', content: 'hi' }] }) })).status)
    .toBe(200)

  await page.reload()
  const key = page.getByTestId('local-api-key').filter({ hasText: 'my editor' })
  await expect(key).toContainText('2 calls')
  // The key itself is never shown again, only its first characters.
  await expect(page.getByTestId('local-api-section')).not.toContainText(secret)
  await key.getByRole('button', { name: 'Revoke the key my editor' }).click()
  await expect(key).toContainText('Revoked')
  expect((await call()).status).toBe(401)

  await page.getByTestId('local-api-enabled').uncheck()
  await expect(page.getByTestId('local-api-state')).toHaveText('Off')
})

test('allowed origins and host names are edited in Settings: a typo is named, an added origin is answered with CORS, a removed one refused', async ({ page }) => {
  const port = await freePort()
  await openApp(page, '#/settings')
  const section = page.getByTestId('local-api-section')
  await section.scrollIntoViewIfNeeded()
  await section.getByTestId('local-api-port').fill(String(port))
  await section.getByTestId('local-api-port').blur()
  await section.getByTestId('local-api-key-name').fill('web page')
  await section.getByTestId('local-api-create-key').click()
  const secret = (await section.getByTestId('local-api-secret').locator('code').innerText()).trim()
  await section.getByTestId('local-api-enabled').check()
  await expect(section.getByTestId('local-api-state')).toHaveText(`Running at http://127.0.0.1:${port}/v1`)
  const fromPage = (origin: string) => fetch(`http://127.0.0.1:${port}/v1/models`, { headers: { authorization: `Bearer ${secret}`, origin } })
  const origin = 'https://notes.example.com'
  expect((await fromPage(origin)).status).toBe(403)

  const origins = section.getByTestId('local-api-origins')
  // A path is not part of an origin: named before anything is saved, with the form expected.
  await origins.getByTestId('local-api-origins-input').fill('https://notes.example.com/app')
  await origins.getByTestId('local-api-origins-input').press('Enter')
  await expect(origins.getByTestId('local-api-origins-problem')).toContainText('without a path')
  await expect(origins.getByTestId('local-api-origins-input')).toHaveAttribute('aria-invalid', 'true')
  await origins.getByTestId('local-api-origins-input').fill('HTTPS://Notes.Example.com/')
  await origins.getByTestId('local-api-origins-add').click()
  await expect(origins.getByTestId('local-api-origins-entry')).toHaveText([origin])
  await expect(origins.getByTestId('local-api-origins-problem')).toHaveCount(0)
  const allowed = await fromPage(origin)
  expect(allowed.status).toBe(200)
  expect(allowed.headers.get('access-control-allow-origin')).toBe(origin)

  const hosts = section.getByTestId('local-api-hosts')
  await hosts.getByTestId('local-api-hosts-input').fill('mybox.local:8080')
  await hosts.getByTestId('local-api-hosts-add').click()
  await expect(hosts.getByTestId('local-api-hosts-problem')).toContainText('without a port')
  await hosts.getByTestId('local-api-hosts-input').fill('mybox.local')
  await hosts.getByTestId('local-api-hosts-input').press('Enter')
  await expect(hosts.getByTestId('local-api-hosts-entry')).toHaveText(['mybox.local'])

  // Kept across a reload, and removed with the keyboard.
  await page.reload()
  const kept = page.getByTestId('local-api-origins')
  await expect(kept.getByTestId('local-api-origins-entry')).toHaveText([origin])
  await kept.getByRole('button', { name: `Remove ${origin}` }).focus()
  await page.keyboard.press('Enter')
  await expect(kept.getByTestId('local-api-origins-entry')).toHaveCount(0)
  expect((await fromPage(origin)).status).toBe(403)
  await page.getByTestId('local-api-hosts').getByRole('button', { name: 'Remove mybox.local' }).click()
  await expect(page.getByTestId('local-api-hosts').getByTestId('local-api-hosts-entry')).toHaveCount(0)

  await page.getByTestId('local-api-enabled').uncheck()
  await expect(page.getByTestId('local-api-state')).toHaveText('Off')
})

test('"Use with coding agents": Test sends the agent’s first request through the local API and shows the answer', async ({ page }) => {
  await configureProvider(page, 'openai', fake.url, 'sk-e2e-local-api-0123456789')
  const port = await freePort()
  await openApp(page, '#/settings')
  const section = page.getByTestId('local-api-section')
  await section.scrollIntoViewIfNeeded()
  await section.getByTestId('local-api-port').fill(String(port))
  await section.getByTestId('local-api-port').blur()
  const agents = section.getByRole('region', { name: 'Use with coding agents' })
  // Not running yet: nothing to test against.
  await expect(agents.getByRole('button', { name: 'Test Any OpenAI client' })).toBeDisabled()
  await section.getByTestId('local-api-enabled').check()
  await expect(section.getByTestId('local-api-state')).toHaveText(`Running at http://127.0.0.1:${port}/v1`)

  await agents.getByTestId('local-api-agent-model').fill('openai/gpt-4o-mini')
  // Reached and pressed with the keyboard.
  await agents.getByRole('button', { name: 'Test Any OpenAI client' }).focus()
  await page.keyboard.press('Enter')
  await expect(agents.getByTestId('local-api-test-result-openai')).toContainText('from the gateway')

  // A model the local API does not offer: the gateway's answer and what to do.
  await agents.getByTestId('local-api-agent-model').fill('nope/no-such-model')
  await agents.getByRole('button', { name: 'Test Claude Code' }).click()
  await expect(agents.getByTestId('local-api-test-result-claude-code')).toContainText('Fix:')
  await snap(page, 'settings-local-api-agents')

  await section.getByTestId('local-api-enabled').uncheck()
  await expect(section.getByTestId('local-api-state')).toHaveText('Off')
})
