import { expect, test, type Page } from '@playwright/test'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { startFakeToolProvider, type Decision, type FakeToolProvider, type ToolTurn } from '../fixtures/fake-tool-provider'
import { configureProvider, openApp, pickModel, snap } from './helpers'

// Issue 21 in the real app: Settings → Tools with the real filesystem MCP server (stdio) on a
// temporary folder, a failing server, an agent that may use them, the approval card accepted
// and denied, and web search against a SearXNG-format server producing citations.
const KEY = 'sk-e2e-tools-0123456789'
const FILESYSTEM = resolve('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js')
const EVERYTHING = resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js')
const SAMPLED = 'SAMPLED-IN-THE-APP'
const SECRET = 'The treasure is buried under the old oak.'
let fake: FakeToolProvider
let searx: Server
let searxUrl: string
let folder: string

const notes = () => join(folder, 'notes.txt')

function decide(turn: ToolTurn): Decision {
  const first = (turn.body['messages'] as { content: unknown }[] | undefined)?.[0]?.content
  if (typeof first === 'string' && first.startsWith('You write a title')) return { text: 'Tools chat' }
  // A server's sampling request (server-everything sends its prompt as "Resource … context: …").
  if (!turn.tools.length && /trigger-sampling-request context:/.test(turn.userText)) return { text: SAMPLED }
  if (turn.results.length) return { text: `Tool said: ${turn.results.map((r) => r.content).join(' | ')}` }
  if (/sample/i.test(turn.userText) && turn.tools.includes('everything__trigger-sampling-request')) return { calls: [{ name: 'everything__trigger-sampling-request', args: { prompt: 'Name a colour', maxTokens: 64 } }] }
  if (/search/i.test(turn.userText) && turn.tools.includes('web_search')) return { calls: [{ name: 'web_search', args: { query: 'otters' } }] }
  if (/notes/i.test(turn.userText) && turn.tools.includes('files__read_text_file')) return { calls: [{ name: 'files__read_text_file', args: { path: notes() } }] }
  return { text: `No tool for that. Offered: ${turn.tools.length}` }
}

test.describe.configure({ mode: 'serial' })

test.beforeAll(async () => {
  folder = realpathSync(mkdtempSync(join(tmpdir(), 'sb-e2e-fs-')))
  writeFileSync(notes(), SECRET)
  fake = await startFakeToolProvider(decide)
  searx = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ query: 'otters', results: [{ url: 'https://example.org/otters', title: 'Otter facts', content: 'Otters hold hands.' }, { url: 'https://example.net/rafts', title: 'Otter rafts', content: 'Rafts.' }] }))
  })
  await new Promise<void>((r) => searx.listen(0, '127.0.0.1', r))
  searxUrl = `http://127.0.0.1:${(searx.address() as AddressInfo).port}`
})

test.afterAll(async () => {
  await fake.close()
  await new Promise<void>((r) => searx.close(() => r()))
})

async function addServer(page: Page, name: string, command: string) {
  await page.getByTestId('tool-server-add').click()
  const form = page.getByTestId('tool-server-form')
  await form.getByTestId('tool-server-name').fill(name)
  await form.getByTestId('tool-server-command').fill(command)
  await form.getByTestId('tool-server-save').click()
}

/** "+" makes a new agent and opens its editor: saved as it is, the chat continues with it. */
async function newAgent(page: Page) {
  await page.getByTestId('new-agent').click()
  const editor = page.getByTestId('agent-settings')
  await editor.getByTestId('agent-save').click()
  await expect(editor).toHaveCount(0)
}

async function send(page: Page, text: string) {
  await page.getByTestId('composer-input').fill(text)
  await page.getByTestId('composer-input').press('Enter')
}

test('Settings → Tools: a working server is ready with its tools, a failing one shows its error and stderr', async ({ page }) => {
  await configureProvider(page, 'openai', `${fake.origin}/v1`, KEY)
  await openApp(page, '#/settings')
  const tools = page.getByTestId('tools-settings')
  await tools.scrollIntoViewIfNeeded()
  await addServer(page, 'files', `"${process.execPath}" "${FILESYSTEM}" "${folder}"`)
  const files = tools.locator('[data-testid="tool-server"][data-name="files"]')
  await expect(files.getByTestId('tool-server-state')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 })
  await expect(files.getByTestId('tool-server-state')).toContainText(/Ready with \d+ tools/)
  // The tool list (the server's folders have a summary of their own above it).
  await files.getByTestId('tool-server-lists').locator('summary').click()
  await expect(files.locator('[data-testid="tool-row"][data-tool="read_text_file"]')).toBeVisible()

  await addServer(page, 'broken', `"${process.execPath}" -e "console.error('boom: missing config file'); process.exit(2)"`)
  const broken = tools.locator('[data-testid="tool-server"][data-name="broken"]')
  await expect(broken.getByTestId('tool-server-state')).toHaveAttribute('data-state', 'error', { timeout: 30_000 })
  await expect(broken.getByTestId('tool-server-error')).toContainText('boom: missing config file')

  await page.getByTestId('search-provider').selectOption('searxng')
  await page.getByTestId('searxng-url').fill(searxUrl)
  await page.getByTestId('searxng-url').blur()
  await snap(page, 'tools-settings')
})

test('an agent with the filesystem server answers from a file after the approval card is accepted', async ({ page }) => {
  await openApp(page, '#/chat')
  await newAgent(page)
  await pickModel(page, 'openai', 'gpt-4o-mini')
  await page.getByTestId('open-agent-settings').click()
  const dialog = page.getByTestId('agent-settings')
  await dialog.locator('[data-testid="agent-tool-server"][data-name="files"]').check()
  await dialog.locator('[data-testid="agent-tool-server"][data-name="broken"]').check()
  await dialog.getByTestId('agent-builtin-web_search').check()
  await expect(dialog.locator('[data-testid="agent-tool-server"][data-name="files"]')).toBeChecked()
  // The server that cannot start shows as failed where it was picked, with its error.
  await expect(dialog.getByTestId('agent-tool-server-error')).toHaveCount(1, { timeout: 30_000 })
  await expect(dialog.getByTestId('agent-tool-server-error')).toContainText(/^Failed to start: .+/)
  await page.keyboard.press('Escape')

  await send(page, 'What do my notes say?')
  const card = page.getByTestId('approval-card')
  await expect(card).toBeVisible({ timeout: 30_000 })
  await expect(card).toContainText('read_text_file')
  await expect(card).toContainText('files')
  await expect(card.getByTestId('approval-arguments')).toContainText('"path"')
  await snap(page, 'tools-approval-card')
  await card.getByTestId('approval-allow').click()
  await expect(page.getByTestId('message-assistant').last()).toContainText(SECRET)
  await expect(page.getByTestId('tool-result').first()).toHaveAttribute('data-outcome', 'ok')

  // Everything persisted: after a reload the call, its result and the answer are still there.
  await page.reload()
  await expect(page.getByTestId('message-assistant').last()).toContainText(SECRET, { timeout: 30_000 })
  await expect(page.getByTestId('tool-call').first()).toContainText('read_text_file')
  await expect(page.getByTestId('tool-result').first()).toHaveAttribute('data-outcome', 'ok')
})

test('a denied call goes back to the model and nothing is read', async ({ page }) => {
  await openApp(page, '#/chat')
  await page.getByTestId('conversation-item').first().click()
  await send(page, 'Read my notes again')
  const card = page.getByTestId('approval-card')
  await expect(card).toBeVisible({ timeout: 30_000 })
  await card.getByTestId('approval-deny').click()
  const answer = page.getByTestId('message-assistant').last()
  await expect(answer).toContainText('declined')
  await expect(page.locator('[data-testid="tool-result"][data-outcome="denied"]')).toBeVisible()
})

test('a reload while the approval card waits shows the card again, and answering it finishes the reply', async ({ page }) => {
  await openApp(page, '#/chat')
  await page.getByTestId('conversation-item').first().click()
  await send(page, 'Once more, my notes please')
  await expect(page.getByTestId('approval-card')).toBeVisible({ timeout: 30_000 })
  await page.reload()
  const card = page.getByTestId('approval-card')
  await expect(card).toBeVisible({ timeout: 30_000 })
  await card.getByTestId('approval-allow').click()
  await expect(page.getByTestId('message-assistant').last()).toContainText(SECRET)
})

test('web search with SearXNG-format results produces citations', async ({ page }) => {
  await openApp(page, '#/chat')
  await page.getByTestId('conversation-item').first().click()
  await send(page, 'Search the web about otters')
  const card = page.getByTestId('approval-card')
  await expect(card).toBeVisible({ timeout: 30_000 })
  await expect(card).toContainText('web_search')
  await card.getByTestId('approval-allow').click()
  const citations = page.getByTestId('citations').last()
  await expect(citations).toBeVisible({ timeout: 30_000 })
  await expect(citations.getByRole('link', { name: 'Otter facts' })).toHaveAttribute('href', 'https://example.org/otters')
  await snap(page, 'tools-web-search')
})

test('the search toggle on a model without search of its own uses the app’s web search: no card, citations', async ({ page }) => {
  await openApp(page, '#/chat')
  // A fresh agent with no tools of its own: the toggle alone brings web_search.
  await newAgent(page)
  await pickModel(page, 'openai', 'gpt-4.1-nano')
  const toggle = page.getByTestId('control-search')
  await expect(toggle).toBeVisible()
  await toggle.click()
  await expect(toggle).toHaveAttribute('aria-pressed', 'true')
  await send(page, 'Search the web about otters')
  const citations = page.getByTestId('citations').last()
  await expect(citations).toBeVisible({ timeout: 30_000 })
  await expect(citations.getByRole('link', { name: 'Otter facts' })).toHaveAttribute('href', 'https://example.org/otters')
  await expect(page.getByTestId('approval-card')).toHaveCount(0)
  await snap(page, 'tools-search-toggle')
})

test('a server asks the model (sampling): the card names the server, prompt, model and limit; Allow answers through the app', async ({ page }) => {
  await openApp(page, '#/settings')
  const tools = page.getByTestId('tools-settings')
  await tools.scrollIntoViewIfNeeded()
  await addServer(page, 'everything', `"${process.execPath}" "${EVERYTHING}" stdio`)
  await expect(tools.locator('[data-testid="tool-server"][data-name="everything"]').getByTestId('tool-server-state')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 })
  await openApp(page, '#/chat')
  await newAgent(page)
  await pickModel(page, 'openai', 'gpt-4o-mini')
  await page.getByTestId('open-agent-settings').click()
  await page.getByTestId('agent-settings').locator('[data-testid="agent-tool-server"][data-name="everything"]').check()
  await page.keyboard.press('Escape')

  await send(page, 'Please sample the model')
  const toolCard = page.getByTestId('approval-card')
  await expect(toolCard).toBeVisible({ timeout: 30_000 })
  await toolCard.getByTestId('approval-allow').click()
  const card = page.getByTestId('sampling-card')
  await expect(card).toBeVisible({ timeout: 30_000 })
  await expect(card).toContainText('everything')
  await expect(card).toContainText('gpt-4o-mini')
  await expect(card).toContainText('64')
  await expect(card.getByTestId('sampling-prompt')).toContainText('Name a colour')
  await snap(page, 'tools-sampling-card')
  await card.getByTestId('sampling-allow').click()
  await expect(page.getByTestId('message-assistant').last()).toContainText(SAMPLED, { timeout: 30_000 })
})

test('the composer turns tools off for the next message only, from the keyboard', async ({ page }) => {
  await openApp(page, '#/chat')
  await page.getByTestId('conversation-item').first().click()
  const toggle = page.getByTestId('message-tools-toggle')
  await expect(toggle).toHaveAttribute('data-state', 'on', { timeout: 30_000 })
  await toggle.focus()
  await page.keyboard.press('Enter')
  const all = page.getByTestId('message-tools-all')
  await expect(all).toBeFocused()
  await page.keyboard.press('Space')
  await expect(all).not.toBeChecked()
  await page.keyboard.press('Escape')
  await expect(page.getByTestId('message-tools-menu')).toHaveCount(0)
  await expect(toggle).toHaveAttribute('data-state', 'off')
  await expect(toggle).toContainText('Tools off')
  await snap(page, 'tools-composer-toggle')

  await send(page, 'Please sample the model again')
  await expect(page.getByTestId('message-assistant').last()).toContainText('No tool for that. Offered: 0', { timeout: 30_000 })
  await expect(page.getByTestId('approval-card')).toHaveCount(0)
  // Only that message: the next one has the agent's tools again.
  await expect(toggle).toHaveAttribute('data-state', 'on')
  await send(page, 'Please sample the model once more')
  await expect(page.getByTestId('approval-card')).toBeVisible({ timeout: 30_000 })
  await page.getByTestId('approval-deny').click()
})
